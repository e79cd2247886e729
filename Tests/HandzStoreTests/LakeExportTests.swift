import Foundation
import HandzAnalyticsCore
import HandzCompression
import HandzLake
import HandzSigning
import HandzStore
import HandzTestSupport
import Testing

/// `export lake` from both stores: hourly partitions by receive time, manifests that match their
/// files, idempotent re-runs, and partitions rewritten or removed when the store changes under
/// them (forget-user, purge).
@Suite struct LakeExportTests {
    typealias Engine = StoreConformanceTests.Engine

    /// 2026-02-28T23:00:00Z: three batches straddle a day and a month boundary.
    static let hour0: Int64 = 1_772_319_600_000
    static let hour: Int64 = 3_600_000

    /// Batches received at 23:10, 23:59:59.999, 00:00:00.000 (next day, next month) and 02:30.
    static func fill(_ store: any EventStore) async throws {
        let receipts: [(Int64, [(UInt64, UInt64)], String?)] = [
            (hour0 + 600_000, [(1, 1), (1, 2)], "6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70"),
            (hour0 + hour - 1, [(1, 3)], nil),
            (hour0 + hour, [(1, 4), (1, 5), (1, 6)], "6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70"),
            (hour0 + 3 * hour + 1_800_000, [(1, 7)], nil),
        ]
        for (received, ids, user) in receipts {
            // The last batch comes from another install, which a deletion of the user leaves alone.
            let install = received > hour0 + 2 * hour ? "3e5a7c9b-1d2f-4a6b-8c0d-2e4f6a8b0c1d" : "0f7c3a52-9d1e-4a8b-b6c2-5e4d3c2b1a09"
            _ = try await store.append(StoreTests.batch(StoreTests.rows(ids, userID: user, install: install), receivedMs: received))
        }
    }

    /// The partitions under `root` with their decompressed lines, checked against their manifests.
    static func read(_ root: URL) throws -> [String: [[String: Any]]] {
        var out: [String: [[String: Any]]] = [:]
        for partition in try LakeExporter(root: root).existingPartitions() {
            let directory = root.appendingPathComponent(partition.path)
            let data = try Data(contentsOf: directory.appendingPathComponent(LakePartition.dataFile))
            let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(LakePartition.manifestFile))) as? [String: Any])
            let file = try #require((manifest["files"] as? [[String: Any]])?.first)
            var hash = SHA256Stream()
            hash.update(Array(data))
            #expect(file["sha256"] as? String == hash.hex())
            #expect(file["bytes"] as? Int == data.count)
            let text = try Gzip.decompress(Array(data), limit: 1 << 24)
            let lines = try text.split(separator: UInt8(ascii: "\n")).map { try #require(JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
            #expect(manifest["rows"] as? Int == lines.count)
            #expect(manifest["partition"] as? String == partition.path)
            out[partition.path] = lines
        }
        return out
    }

    @Test("one partition per UTC hour of receipt, rows in (received, event_id) order, manifests that match", arguments: Engine.allCases)
    func partitions(engine: Engine) async throws {
        let subject = try await StoreConformanceTests.subject(engine)
        defer { subject.cleanup() }
        try await Self.fill(subject.store)
        let root = try temporaryDirectory("handz-lake")
        defer { try? FileManager.default.removeItem(at: root) }
        let summary = try await LakeExporter(root: root).export(from: subject.store, receivedFromMs: Self.hour0 - 5 * Self.hour, toMs: Self.hour0 + 10 * Self.hour)
        #expect(summary.written == 3 && summary.rows == 7 && summary.unchanged == 0 && summary.removed == 0)
        let lake = try Self.read(root)
        #expect(lake.keys.sorted() == ["dt=2026-02-28/hour=23", "dt=2026-03-01/hour=00", "dt=2026-03-01/hour=02"])
        let first = try #require(lake["dt=2026-02-28/hour=23"])
        #expect(first.map { $0["event_id"] as? String } == ["00000000-0000-0001-0000-000000000001", "00000000-0000-0001-0000-000000000002", "00000000-0000-0001-0000-000000000003"])
        #expect(first.map { $0["received_time_ms"] as? Int64 } == [Self.hour0 + 600_000, Self.hour0 + 600_000, Self.hour0 + Self.hour - 1])
        // properties is a JSON string holding the object, whichever store wrote it.
        let properties = try #require(first[0]["properties"] as? String)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(properties.utf8)) as? [String: String])
        #expect(object == ["start_type": "cold", "launch_source": "direct"])
        #expect(first[2]["user_id"] is NSNull)
        #expect(Set(first[0].keys) == Set(["event_id", "event_name", "event_time_ms", "received_time_ms", "install_id", "session_id", "user_id",
                                          "user_state", "app_version", "build_number", "platform", "os_version", "device_model", "locale",
                                          "timezone", "network_state", "key_id", "catalog_version", "properties"]))
        await subject.store.close()
    }

    @Test("re-runs are idempotent; a deletion rewrites only the partitions it touched; purge removes emptied ones", arguments: Engine.allCases)
    func idempotent(engine: Engine) async throws {
        let subject = try await StoreConformanceTests.subject(engine)
        defer { subject.cleanup() }
        try await Self.fill(subject.store)
        let root = try temporaryDirectory("handz-lake")
        defer { try? FileManager.default.removeItem(at: root) }
        let exporter = LakeExporter(root: root)
        let range = (Self.hour0 - Self.hour, Self.hour0 + 10 * Self.hour)
        _ = try await exporter.export(from: subject.store, receivedFromMs: range.0, toMs: range.1)
        let before = try Data(contentsOf: root.appendingPathComponent("dt=2026-03-01/hour=02").appendingPathComponent(LakePartition.dataFile))

        let again = try await exporter.export(from: subject.store, receivedFromMs: range.0, toMs: range.1)
        #expect(again.written == 0 && again.unchanged == 3 && again.removed == 0)

        #expect(try await Deleting.forget(subject.store, "6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70", nowMs: Self.hour0 + 10 * Self.hour).eventsDeidentified == 6)
        let forgotten = try await exporter.export(from: subject.store, receivedFromMs: range.0, toMs: range.1)
        #expect(forgotten.written == 2 && forgotten.unchanged == 1)
        #expect(try Self.read(root).values.joined().allSatisfy { $0["user_id"] is NSNull })
        #expect(try Data(contentsOf: root.appendingPathComponent("dt=2026-03-01/hour=02").appendingPathComponent(LakePartition.dataFile)) == before)

        _ = try await subject.store.purge(receivedBeforeMs: Self.hour0 + Self.hour, nowMs: 2)
        let purged = try await exporter.export(from: subject.store, receivedFromMs: range.0, toMs: range.1)
        #expect(purged.removed == 1 && purged.unchanged == 2 && purged.written == 0)
        #expect(try Self.read(root).keys.sorted() == ["dt=2026-03-01/hour=00", "dt=2026-03-01/hour=02"])
        // No temporary file is left behind.
        let leftovers = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.contains(".tmp-") } ?? []
        #expect(leftovers.isEmpty)
        await subject.store.close()
    }

    @Test("a range exports only its hours, widened to whole hours")
    func range() async throws {
        let subject = try await StoreConformanceTests.subject(.sqlite)
        defer { subject.cleanup() }
        try await Self.fill(subject.store)
        let root = try temporaryDirectory("handz-lake")
        defer { try? FileManager.default.removeItem(at: root) }
        let summary = try await LakeExporter(root: root).export(from: subject.store, receivedFromMs: Self.hour0 + Self.hour + 1, toMs: Self.hour0 + Self.hour + 2)
        #expect(summary.written == 1 && summary.rows == 3)
        #expect(try LakeExporter(root: root).existingPartitions().map(\.path) == ["dt=2026-03-01/hour=00"])
        await subject.store.close()
    }

    @Test("partition paths are UTC civil hours, also before 1970 and on leap days")
    func paths() {
        #expect(LakePartition(containing: 0).path == "dt=1970-01-01/hour=00")
        #expect(LakePartition(containing: -1).path == "dt=1969-12-31/hour=23")
        #expect(LakePartition(containing: 1_709_251_199_999).path == "dt=2024-02-29/hour=23")
        #expect(LakePartition(containing: 1_709_251_200_000).path == "dt=2024-03-01/hour=00")
        #expect(LakePartition(containing: 4_102_444_799_999).path == "dt=2099-12-31/hour=23")
    }
}

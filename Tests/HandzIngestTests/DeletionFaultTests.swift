import Foundation
import HandzCompression
import HandzLake
import HandzSigning
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// The deletion ledger under a real `serve` process (issue 14 proof): kill -9 while a deletion is
/// half done — store step committed, some lake partitions rewritten — and the restarted server
/// completes it; a second identical request is a no-op.
@Suite(.serialized) struct DeletionFaultTests {
    static let user = "4f0c2a8e-6b1d-4e3f-9a57-0c1d2e3f4a5b"
    static let install = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
    static let hourMs: Int64 = 3_600_000

    /// Five hours of the user's events, received 7 to 3 hours ago, written straight to the store
    /// (the server stamps what it receives with now) and exported to the lake.
    static func prepare(_ directory: URL) async throws -> (db: String, lake: URL) {
        let db = directory.appendingPathComponent("handz-events.sqlite").path
        let lake = directory.appendingPathComponent("lake")
        let store = try SQLiteEventStore(path: db)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let firstHour = (now / hourMs - 7) * hourMs
        for hour in 0..<5 {
            var rows = EventRows()
            for index in 0..<4 {
                rows.append(eventID: (41, UInt64(hour * 10 + index)), eventTimeMs: firstHour + Int64(hour) * hourMs, fields: [
                    .eventName: "app_open", .installID: install, .sessionID: String(format: "5e551010-0000-4000-8000-%012d", hour),
                    .userID: user, .userState: "free", .appVersion: "1.4.2", .buildNumber: "418", .platform: "iOS", .osVersion: "iOS 18.6",
                    .deviceModel: "iPhone15,2", .locale: "en_US", .timezone: "UTC", .networkState: "online",
                    .properties: "{\"start_type\":\"cold\",\"launch_source\":\"direct\"}",
                ])
            }
            _ = try await store.append(IngestBatch(receivedTimeMs: firstHour + Int64(hour) * hourMs + 60_000, keyID: "hzk_test", catalogVersion: "1.0.0",
                                                   sentAtMs: nil, bodyBytes: 100, rows: rows, rejected: []))
        }
        _ = try await LakeExporter(root: lake).export(from: store, receivedFromMs: firstHour, toMs: firstHour + 5 * hourMs)
        store.closeNow()
        return (db, lake)
    }

    static func manifests(_ lake: URL) -> [String: Data] {
        var found: [String: Data] = [:]
        guard let files = FileManager.default.enumerator(at: lake, includingPropertiesForKeys: nil) else { return found }
        for case let file as URL in files where file.lastPathComponent == LakePartition.manifestFile {
            found[file.deletingLastPathComponent().path] = FileManager.default.contents(atPath: file.path)
        }
        return found
    }

    @Test("kill -9 halfway through a deletion's lake step: after restart the request completes on every copy; a repeat is a no-op")
    func killedMidDeletion() async throws {
        let directory = try temporaryDirectory("handz-deletion-fault")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (db, lake) = try await Self.prepare(directory)
        let admin = IngestionKey.generate(scopes: [.admin])
        try KeysFile(keys: [IngestionKey.generate(scopes: [.ingest]), admin]).save(path: directory.appendingPathComponent("handz-keys.json").path)
        let before = Self.manifests(lake)
        #expect(before.count == 5)
        let arguments = ["--lake", lake.path, "--lake-interval", "3600", "--deletion-interval", "1", "--deletion-lease", "2"]

        // 1. The request is recorded and the worker starts; the server kills itself with SIGKILL
        //    (as kill -9 would) right after its second partition — a fixed point, whatever the load.
        let server = try ServerProcess(directory: directory, arguments: arguments + ["--fault-kill-after-partitions", "2"])
        var client = IngestHTTPClient(baseURL: server.baseURL, key: admin)
        var timestamp = Int64(Date().timeIntervalSince1970)
        func nextTimestamp() -> Int64 { timestamp += 1; return timestamp }  // admin signatures are single-use
        let accepted = try await client.send(body: [], path: "/v1/users/\(Self.user)", method: "DELETE", encoding: nil, timestamp: nextTimestamp())
        #expect(accepted.status == 202)
        let id = try #require(accepted.json?["request_id"] as? String)
        for _ in 0..<600 where server.process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!server.process.isRunning && server.process.terminationReason == .uncaughtSignal && server.process.terminationStatus == SIGKILL)
        server.stop(signal: SIGKILL)
        let changed = Self.manifests(lake).filter { before[$0.key] != $0.value }.count
        #expect(changed == 2, "partitions rewritten before the kill: \(changed)")
        let ledger = try SQLiteDatabase(path: db)
        #expect(try ledger.scalar("SELECT COUNT(*) FROM deletion_requests WHERE state = 'pending' AND store_step = 'done' AND lake_step = 'pending'") == 1)
        #expect(try ledger.scalar("SELECT COUNT(*) FROM events WHERE user_id IS NOT NULL") == 0)

        // 2. Restarted, the server takes the request over once the dead worker's lease ends.
        let restarted = try ServerProcess(directory: directory, arguments: arguments)
        defer { restarted.stop() }
        client.baseURL = restarted.baseURL
        var state = ""
        for _ in 0..<120 where state != "completed" {
            try await Task.sleep(for: .milliseconds(250))
            let status = try await client.send(body: [], path: "/v1/deletions/\(id)", method: "GET", encoding: nil, timestamp: nextTimestamp())
            #expect(status.status == 200)
            state = status.json?["state"] as? String ?? ""
        }
        #expect(state == "completed")
        #expect(try ledger.scalar("SELECT attempts FROM deletion_requests") ?? 0 >= 2)
        #expect(try ledger.scalar("SELECT partitions_rewritten FROM deletion_requests") ?? 0 >= 5 - Int64(changed))
        #expect(Self.manifests(lake).filter { before[$0.key] == $0.value }.isEmpty)
        for case let file as URL in FileManager.default.enumerator(at: lake, includingPropertiesForKeys: nil)! where file.pathExtension == "gz" {
            let text = String(decoding: try Gzip.decompress(Array(try Data(contentsOf: file)), limit: 1 << 24), as: UTF8.self)
            #expect(!text.contains(Self.user) && !text.contains(Self.install))
        }
        #expect(!FileManager.default.enumerator(atPath: lake.path)!.contains { ($0 as? String)?.contains(".tmp-") == true })

        // 3. The same request again: the same id, nothing new to do.
        let again = try await client.send(body: [], path: "/v1/users/\(Self.user.uppercased())", method: "DELETE", encoding: nil, timestamp: nextTimestamp())
        #expect(again.status == 202 && again.json?["request_id"] as? String == id && again.json?["state"] as? String == "completed")
        #expect(try ledger.scalar("SELECT COUNT(*) FROM deletion_requests") == 1)
        let health = try await client.send(body: [], path: "/health", method: "GET", encoding: nil, timestamp: nextTimestamp())
        #expect(health.json?["pending_deletions"] as? Int == 0 && health.json?["retention"] as? String == "13mo")
    }
}

import Foundation
import HandzAnalyticsCore
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing
@testable import HandzColumnStore

/// Segments sealed into the column store (issue 34 §3): the chunks hold the rows and values the
/// SQLite log gives for the same requests, the segments go once sealed, and their ids stay known.
@Suite struct SegmentSealingTests {
    static let names = ["app_open", "flow_saved_success", "builder_opened", "drill_completed"]

    /// `count` requests of 100 events over three UTC days; request k repeats 10 ids of request k - 1.
    static func requests(_ count: Int) -> [IngestBatch] {
        let start: Int64 = 1_772_323_200_000
        return (0..<count).map { request in
            var rows = EventRows(capacity: 100)
            for slot in 0..<100 {
                let index = request * 90 + slot
                var fields: [EventColumn: String] = [
                    .eventName: names[index % names.count],
                    .installID: String(format: "0190a000-0000-7000-8000-%012x", index % 37),
                    .sessionID: String(format: "0190a001-0000-7000-8000-%012x", index % 53),
                    .userState: index % 5 == 0 ? "signed_out" : "signed_in", .appVersion: index % 2 == 0 ? "1.4.2" : "1.4.3", .buildNumber: "142",
                    .platform: index % 3 == 0 ? "ipados" : "ios", .osVersion: "18.1", .deviceModel: "iPhone16,1", .locale: "en_US",
                    .timezone: "Europe/Paris", .networkState: "wifi",
                    .properties: index % 4 == 0 ? "{}" : "{\"node_count\":\(index % 40),\"is_first_save\":\(index % 2 == 0),\"flow_id\":\"0190b000-0000-7000-8000-\(String(format: "%012x", index % 9))\",\"source\":\"library\"}",
                ]
                if index % 4 != 0 { fields[.userID] = String(format: "0190a002-0000-7000-8000-%012x", index % 11) }
                rows.append(eventID: (0x0190_A003_0000_7000, UInt64(index)), eventTimeMs: start + Int64(index) * 97_000, fields: fields)
            }
            return IngestBatch(receivedTimeMs: start + Int64(request) * 60_000, keyID: "key_ios_1", catalogVersion: "1.3.0", sentAtMs: nil,
                               bodyBytes: 9_000, rows: rows, rejected: [])
        }
    }

    @Test("a property whose values change type within a chunk is text there, on the segments as on the log")
    func propertyTypesMixed() async throws {
        let directory = try temporaryDirectory("sealing-mixed").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // One event and day; "mixed" an integer, then text, then a boolean, then an integer again.
        let values = ["5", "\"five\"", "true", "7", "\"0190b000-0000-7000-8000-000000000001\""]
        var rows = EventRows()
        for (index, value) in values.enumerated() {
            rows.append(eventID: (0x0190_A004_0000_7000, UInt64(index)), eventTimeMs: 1_772_323_200_000 + Int64(index) * 1000, fields: [
                .eventName: "flow_saved_success", .installID: "0190a000-0000-7000-8000-000000000001",
                .sessionID: "0190a001-0000-7000-8000-000000000001", .userState: "free", .appVersion: "1.4.2", .buildNumber: "142",
                .platform: "ios", .osVersion: "18.1", .deviceModel: "iPhone16,1", .locale: "en_US", .timezone: "UTC", .networkState: "wifi",
                .properties: "{\"mixed\":\(value),\"count\":\(index)}",
            ])
        }
        let request = IngestBatch(receivedTimeMs: 1_772_323_300_000, keyID: "key_ios_1", catalogVersion: "1.3.0", sentAtMs: nil, bodyBytes: 1_000,
                                  rows: rows, rejected: [])
        let store = try SQLiteEventStore(path: directory + "/log.sqlite")
        _ = try await store.append(request)
        store.closeNow()
        let fromLog = try ColumnStoreWriter(directory: directory + "/log-columns")
        try LogSealer().seal(try SQLiteDatabase(path: directory + "/log.sqlite"), into: fromLog)

        let log = try SegmentLog(directory: directory + "/segments")
        let index = try EventIDIndex(directory: directory + "/ids")
        let writer = SegmentWriter(log: log, index: index)
        _ = try await writer.append(request)
        let closed = try writer.withLog { log in
            try log.roll()
            return log.closedSegments
        }
        let fromSegments = try ColumnStoreWriter(directory: directory + "/segment-columns")
        try SegmentSealer().seal(closed, directory: directory + "/segments", into: fromSegments, index: index,
                                 remove: { through in try writer.withLog { try $0.remove(through: through) } })
        writer.close()
        let sealed = try SegmentDeletionTests.rows(fromSegments.directory)
        #expect(sealed == (try SegmentDeletionTests.rows(fromLog.directory)))
        #expect(sealed.contains { $0.contains("properties.mixed=five") } && sealed.contains { $0.contains("properties.mixed=true") })
        let chunk = try ChunkReading(directory: fromSegments.directory).chunk(try #require(fromSegments.manifest.chunks.first))
        #expect(chunk.entry("properties.mixed")?.type == .string && chunk.entry("properties.count")?.type == .integer)
    }

    @Test("sealed segments give the chunks, rows and values the log gives, then go; their ids stay duplicates")
    func agreesWithTheLog() async throws {
        let directory = try temporaryDirectory("sealing").path
        let requests = Self.requests(40)

        let store = try SQLiteEventStore(path: directory + "/log.sqlite")
        for request in requests { _ = try await store.append(request) }
        store.closeNow()
        let fromLog = try ColumnStoreWriter(directory: directory + "/log-columns")
        try LogSealer().seal(try SQLiteDatabase(path: directory + "/log.sqlite"), into: fromLog)

        let log = try SegmentLog(directory: directory + "/segments", segmentBytes: 32 << 10)
        let index = try EventIDIndex(directory: directory + "/ids")
        let writer = SegmentWriter(log: log, index: index)
        var accepted = 0
        for request in requests { accepted += try await writer.append(request).accepted }
        #expect(accepted == 40 * 90 + 10)
        let closed = try writer.withLog { log in
            try log.roll()
            return log.closedSegments
        }
        #expect(closed.count > 3)
        let fromSegments = try ColumnStoreWriter(directory: directory + "/segment-columns")
        var receipts = 0
        let outcome = try SegmentSealer().seal(closed, directory: directory + "/segments", into: fromSegments, index: index,
                                                sealed: { records, _ in receipts += records.count },
                                                remove: { through in try writer.withLog { try $0.remove(through: through) } })
        #expect(outcome.sealedRows == accepted)
        #expect(receipts == 40)
        #expect(fromSegments.manifest.sealedThroughSegment == closed.last!.sequence)
        #expect(try writer.withLog { $0.closedSegments }.isEmpty)

        // The same ids and texts, numbered in another order (a chunk at a time, not a row at a time).
        #expect(Set(fromSegments.dictionaries.uuids) == Set(fromLog.dictionaries.uuids))
        #expect(fromSegments.dictionaries.uuids.count == fromLog.dictionaries.uuids.count)
        #expect(Set(fromSegments.dictionaries.strings) == Set(fromLog.dictionaries.strings))
        let strip = { (entries: [ColumnManifest.ChunkEntry]) in entries.map { [$0.event, "\($0.day)", "\($0.rows)", "\($0.minTimeMs)", "\($0.maxTimeMs)", $0.catalogVersions.joined()] } }
        #expect(strip(fromSegments.manifest.allChunks) == strip(fromLog.manifest.allChunks))
        // Every chunk's rows and values, cell for cell.
        #expect(try SegmentDeletionTests.rows(fromSegments.directory) == (try SegmentDeletionTests.rows(fromLog.directory)))

        // Sealed and gone from the segments, the ids are still duplicates.
        #expect(index.counts.pending == 0)
        let again = try await writer.append(requests[7])
        #expect(again.accepted == 0 && again.duplicates == 100)
        writer.close()
    }
}

import Foundation
import HandzAnalyticsCore
import HandzStore
import HandzTestSupport
import Testing
@testable import HandzColumnStore

/// The segment log on its own (issue 34 §1, "Proof"): what is appended reads back exactly after a
/// reopen, a torn or corrupt tail is cut back to the last whole frame with a log line naming the
/// file and the offset, and damage before whole frames is refused, never cut.
@Suite struct SegmentLogTests {
    /// A request of `count` events (synthetic values), every fourth without a user id.
    static func batch(_ first: Int, count: Int, receivedMs: Int64 = 1_772_323_200_000, rejected: Int = 0) -> IngestBatch {
        var rows = EventRows(capacity: count)
        for index in first..<(first + count) {
            var fields: [EventColumn: String] = [
                .eventName: index % 3 == 0 ? "app_open" : "flow_saved_success",
                .installID: String(format: "0190a000-0000-7000-8000-%012x", index % 7),
                .sessionID: String(format: "0190a001-0000-7000-8000-%012x", index % 11),
                .userState: "signed_in", .appVersion: "1.4.2", .buildNumber: "142", .platform: "ios", .osVersion: "18.1",
                .deviceModel: "iPhone16,1", .locale: "en_US", .timezone: "Europe/Paris", .networkState: "wifi",
                .properties: "{\"node_count\":\(index % 40),\"is_first_save\":\(index % 2 == 0)}",
            ]
            if index % 4 != 0 { fields[.userID] = String(format: "0190a002-0000-7000-8000-%012x", index % 5) }
            rows.append(eventID: (0x0190_A003_0000_7000, UInt64(index)), eventTimeMs: receivedMs - Int64(index) * 1_000, fields: fields)
        }
        let records = (0..<rejected).map { RejectedEventRecord(eventName: $0 % 2 == 0 ? "flow_saved_success" : nil, errors: [(code: "pii_email", path: "/properties/*")], byteSize: 200 + $0) }
        return IngestBatch(receivedTimeMs: receivedMs, keyID: "key_ios_1", catalogVersion: "1.3.0", sentAtMs: first % 2 == 0 ? receivedMs - 40 : nil,
                           bodyBytes: 4_000 + first, rows: rows, rejected: records)
    }

    static func ids(_ rows: EventRows) -> [UUIDWords] {
        (0..<rows.count).map { row in rows.eventID(row).withUnsafeBytes { UUIDWords(orderingBytes: $0) } }
    }

    static func sameRows(_ a: EventRows, _ b: EventRows) -> Bool {
        guard a.count == b.count, a.eventIDs == b.eventIDs, a.eventTimes == b.eventTimes else { return false }
        for row in 0..<a.count {
            for field in EventRows.fields where a.string(row, field) != b.string(row, field) { return false }
        }
        return true
    }

    static func frames(_ records: [BatchRecord]) -> [UInt8] {
        var frames: [UInt8] = []
        for record in records {
            var payload: [UInt8] = []
            record.encode(into: &payload)
            payload.withUnsafeBytes { SegmentLayout.appendFrame($0, to: &frames) }
        }
        return frames
    }

    @Test("a batch record keeps every field, NULLs, the receipt's counts and the quarantine's codes and paths")
    func recordRoundTrip() throws {
        let batch = Self.batch(0, count: 9, rejected: 3)
        let inserted = (0..<9).map { $0 != 4 && $0 != 7 }
        let record = BatchRecord(batch, inserted: inserted)
        var bytes: [UInt8] = []
        record.encode(into: &bytes)
        let decoded = try bytes.withFormatBytes { buffer throws(ChunkFormatError) in try BatchRecord(decoding: buffer) }
        #expect(decoded.rows.count == 7)
        #expect(decoded.duplicates == 2)
        #expect(decoded.requestEvents == 12)
        #expect(decoded.receivedTimeMs == batch.receivedTimeMs && decoded.sentAtMs == batch.sentAtMs && decoded.bodyBytes == batch.bodyBytes)
        #expect(decoded.keyID == "key_ios_1" && decoded.catalogVersion == "1.3.0")
        #expect(decoded.rejected == batch.rejected)
        var expected = EventRows()
        for row in 0..<9 where inserted[row] { expected.appendRow(row, of: batch.rows) }
        #expect(Self.sameRows(decoded.rows, expected))
        #expect(decoded.rows.string(0, .userID) == nil)
        // Every truncation of the record is refused with a format error, never a trap.
        for length in 0..<bytes.count {
            #expect(throws: ChunkFormatError.self) {
                try Array(bytes.prefix(length)).withFormatBytes { buffer throws(ChunkFormatError) in _ = try BatchRecord(decoding: buffer) }
            }
        }
    }

    @Test("appended frames read back in order after the log is reopened, across a roll")
    func reopen() throws {
        let directory = try temporaryDirectory("segments").path
        var written: [BatchRecord] = []
        do {
            let log = try SegmentLog(directory: directory)
            for group in 0..<3 {
                let records = (0..<4).map { BatchRecord(Self.batch(group * 100 + $0 * 10, count: 10), inserted: Array(repeating: true, count: 10)) }
                try log.append(Self.frames(records))
                written += records
                if group == 1 { #expect(try log.roll() == 1) }
            }
            #expect(log.segments.map(\.sequence) == [1, 2])
        }
        var lines: [String] = []
        let log = try SegmentLog(directory: directory) { lines.append($0) }
        #expect(lines.isEmpty)
        #expect(log.segments.map(\.sequence) == [1, 2, 3])
        let read = try log.closedSegments.flatMap { try log.records(of: $0) }
        #expect(read.count == written.count)
        for (a, b) in zip(read, written) { #expect(Self.sameRows(a.rows, b.rows) && a.bodyBytes == b.bodyBytes) }
        try log.remove(through: 1)
        #expect(log.segments.map(\.sequence) == [2, 3])
        #expect(!FileManager.default.fileExists(atPath: directory + "/" + SegmentLayout.fileName(sequence: 1)))
    }

    /// Writes three frames, damages the file with `damage`, reopens, and returns the log lines,
    /// the records that remain and the file's length.
    func reopenAfter(_ damage: (inout [UInt8], _ frameStarts: [Int]) -> Void) throws -> (lines: [String], records: Int, length: Int, error: SegmentLogError?) {
        let directory = try temporaryDirectory("segments").path
        var starts: [Int] = []
        do {
            let log = try SegmentLog(directory: directory)
            for index in 0..<3 {
                starts.append(log.openSegment.bytes)
                try log.append(Self.frames([BatchRecord(Self.batch(index * 10, count: 10), inserted: Array(repeating: true, count: 10))]))
            }
        }
        let path = directory + "/" + SegmentLayout.fileName(sequence: 1)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        damage(&bytes, starts)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var lines: [String] = []
        do {
            let log = try SegmentLog(directory: directory) { lines.append($0) }
            let length = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
            return (lines, try log.records(of: log.segments[0]).count, length, nil)
        } catch let error as SegmentLogError {
            return (lines, 0, bytes.count, error)
        }
    }

    @Test("a tail cut short inside the last frame is cut back to the last whole frame, the file and offset logged")
    func tornTail() throws {
        var third = 0
        let outcome = try reopenAfter { bytes, starts in
            third = starts[2]
            bytes.removeLast((bytes.count - third) / 2)
        }
        #expect(outcome.records == 2)
        #expect(outcome.length == third)
        #expect(outcome.lines.count == 1)
        #expect(outcome.lines.first?.contains(SegmentLayout.fileName(sequence: 1)) == true)
        #expect(outcome.lines.first?.contains("offset \(third)") == true)
    }

    @Test("a flipped byte in the last frame's payload, or zeros after it, is a torn tail too")
    func corruptTail() throws {
        var third = 0
        let flipped = try reopenAfter { bytes, starts in
            third = starts[2]
            bytes[bytes.count - 5] ^= 0x40
        }
        #expect(flipped.records == 2 && flipped.length == third)
        let zeros = try reopenAfter { bytes, _ in bytes += [UInt8](repeating: 0, count: 4_096) }
        #expect(zeros.records == 3)
        #expect(zeros.lines.count == 1)
    }

    @Test("damage before whole frames is refused with segment_corrupt, and nothing is cut")
    func damagedMiddle() throws {
        var first = 0
        let outcome = try reopenAfter { bytes, starts in
            first = starts[0]
            bytes[starts[0] + SegmentLayout.frameHeaderBytes + 3] ^= 0x01
        }
        #expect(outcome.error?.code == .corruptSegment)
        #expect(outcome.error?.reason.contains("offset \(first)") == true)
    }
}

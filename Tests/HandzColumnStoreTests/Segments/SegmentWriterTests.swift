import Foundation
import HandzAnalyticsCore
import HandzStore
import HandzTestSupport
import Testing
@testable import HandzColumnStore

/// The group-commit writer (issue 34 §1–2): requests sent at once share groups, each event id is
/// stored once whatever the order of the requests that carry it, and what was acknowledged is in
/// the segments after a reopen.
@Suite struct SegmentWriterTests {
    @Test("concurrent requests with overlapping ids: each id stored once, every answer exact, all of it durable")
    func concurrentDedupe() async throws {
        let directory = try temporaryDirectory("writer").path
        let log = try SegmentLog(directory: directory + "/segments", segmentBytes: 64 << 10)
        let index = try EventIDIndex(directory: directory + "/ids")
        let writer = SegmentWriter(log: log, index: index)
        // 40 requests of 50 events; request k carries ids 25k ..< 25k + 50, so each id but the
        // first and last 25 is sent twice, by requests that race each other.
        let results = try await withThrowingTaskGroup(of: (Int, AppendResult).self) { group in
            for request in 0..<40 {
                group.addTask { (request, try await writer.append(SegmentLogTests.batch(request * 25, count: 50, rejected: request % 3))) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        writer.close()
        #expect(results.values.reduce(0) { $0 + $1.accepted } == 25 * 41)
        #expect(results.values.reduce(0) { $0 + $1.duplicates } == 40 * 50 - 25 * 41)
        // One frame per request, in fewer groups than requests when they wait together.
        #expect(writer.written.frames == 40)
        #expect(writer.written.rows == 25 * 41)
        let reopened = try SegmentLog(directory: directory + "/segments")
        let records = try reopened.closedSegments.flatMap { try reopened.records(of: $0) }
        #expect(records.count == 40)
        let stored = records.flatMap { SegmentLogTests.ids($0.rows) }
        #expect(stored.count == 25 * 41)
        #expect(Set(stored).count == stored.count)
        #expect(records.reduce(0) { $0 + $1.rejected.count } == (0..<40).reduce(0) { $0 + $1 % 3 })
        #expect(reopened.segments.count > 2, "64 KiB segments roll")
    }

    @Test("a request repeating an id within itself stores it once")
    func duplicateWithinRequest() async throws {
        let directory = try temporaryDirectory("writer").path
        let writer = SegmentWriter(log: try SegmentLog(directory: directory + "/segments"), index: try EventIDIndex(directory: directory + "/ids"))
        var batch = SegmentLogTests.batch(0, count: 5)
        var rows = batch.rows
        rows.appendRow(2, of: batch.rows)
        batch.rows = rows
        let result = try await writer.append(batch)
        writer.close()
        #expect(result.inserted == [true, true, true, true, true, false])
    }
}

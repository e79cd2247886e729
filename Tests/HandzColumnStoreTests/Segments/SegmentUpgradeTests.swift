import Foundation
import HandzAnalyticsCore
@testable import HandzColumnStore
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Issue 34 §4: stores of the SQLite log — schema 5, and the column engine's of issue 33 — upgrade
/// to the segment engine in place: every event in the chunks exactly as a seal of the log gives
/// it, the log emptied, dedupe still exact for the events it held, and no second upgrade.
@Suite struct SegmentUpgradeTests {
    /// Opens `path` with the segment engine and checks the upgrade against `expected` (the rows
    /// of a seal of the same log) and `requests` (the log's events, all duplicates now).
    static func upgradeAndCheck(_ path: String, expected: [String], requests: [IngestBatch], events: Int) async throws {
        var lines: [String] = []
        let store = try SegmentEventStore(path: path) { lines.append($0) }
        #expect(lines.contains { $0.hasPrefix("upgraded to the segment engine: \(events) events moved") }, "\(lines)")
        #expect(try SegmentDeletionTests.rows(ColumnStore.directory(forDatabase: path)) == expected)
        #expect(try SQLiteDatabase(path: path).scalar("SELECT COUNT(*) FROM events") == 0)
        #expect(try store.tables.engineNow() == "segments")
        #expect(FileManager.default.fileExists(atPath: SegmentEventStore.segmentsDirectory(forDatabase: path)))
        // The analysis commands take the column store as current (the emptied log's watermark).
        #expect(try ColumnStore(directory: ColumnStore.directory(forDatabase: path)).isCurrent(with: try SQLiteDatabase(path: path, readOnly: true)))
        #expect(try await store.stats(fromMs: .min, toMs: .max).storedEvents == events)
        for request in requests.prefix(3) { #expect(try await store.append(request).accepted == 0, "the log's events are duplicates") }
        await store.close()
        lines = []
        let reopened = try SegmentEventStore(path: path) { lines.append($0) }
        #expect(lines.isEmpty, "no second upgrade")
        #expect(try await reopened.stats(fromMs: .min, toMs: .max).storedEvents == events)
        await reopened.close()
    }

    @Test("a store of the column engine (issue 33) upgrades in place to the segment engine")
    func columnEngineStoreUpgrades() async throws {
        let data = try SimulatedStore(installs: 40, days: 5, seed: 51)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let events = Int(try #require(try SQLiteDatabase(path: data.path).scalar("SELECT COUNT(*) FROM events")))
        let expected = try SegmentDeletionTests.rows(data.columnsDirectory)
        try await Self.upgradeAndCheck(data.path, expected: expected, requests: try SegmentDeletionTests.requests(data.path), events: events)
    }

    @Test("the upgrade's last step removes nothing when the log changed after it was sealed")
    func logChangedDuringTheUpgrade() throws {
        let data = try SimulatedStore(installs: 10, days: 2, seed: 53)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let log = try SQLiteDatabase(path: data.path)
        let (last, changes) = (try LogChanges.lastRowID(log), try LogChanges.current(log))
        let store = try SQLiteEventStore(path: data.path)
        // Sealed through one row fewer than the log holds: a row arrived after the seal.
        #expect(throws: StoreError.self) { try store.handLogToSegments(sealedThroughRowID: last - 1, logChanges: changes) }
        #expect(throws: StoreError.self) { try store.handLogToSegments(sealedThroughRowID: last, logChanges: changes + 1) }
        #expect(try log.scalar("SELECT MAX(rowid) FROM events") == last)
        #expect(try store.engineNow() == "sqlite")
        #expect(try store.handLogToSegments(sealedThroughRowID: last, logChanges: changes) > 0)
        #expect(try LogChanges.current(log) == changes, "the change counter does not move")
        store.closeNow()
    }

    @Test("a store of schema 5 (the log and issue 15's layer) upgrades in place to the segment engine")
    func schemaFiveStoreUpgrades() async throws {
        let data = try SimulatedStore(installs: 40, days: 5, seed: 52)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let path = data.directory.appendingPathComponent("v5.sqlite").path
        try StoreMigrationTests.schemaFiveStore(at: path, from: data)
        let events = Int(try #require(try SQLiteDatabase(path: path).scalar("SELECT COUNT(*) FROM events")))
        try await Self.upgradeAndCheck(path, expected: try SegmentDeletionTests.rows(data.columnsDirectory),
                                       requests: try SegmentDeletionTests.requests(data.path), events: events)
    }
}

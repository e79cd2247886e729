import Foundation
import HandzAnalyticsCore
import HandzPostgresStore
import HandzQuery
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Both stores hold the one description of a stored event (`EventColumn`, issue 33 §7): their
/// migrated `events` tables have its columns in its order with the types `sql ddl` prints for
/// their dialect, and what a batch writes comes back from the export column for column.
@Suite struct EventDescriptionTests {
    /// Two rows whose every text value differs from every other column's, one signed in and one
    /// signed out, so a column written to or read from the wrong place shows.
    static func batch() -> IngestBatch {
        var rows = StoreTests.rows([(7, 1)])
        rows.append(contentsOf: StoreTests.rows([(7, 2)], userID: nil))
        return StoreTests.batch(rows, receivedMs: 1_772_000_123_456)
    }

    /// Each column's value in `event` against the batch's row.
    static func expectRow(_ event: ExportedEvent, is row: Int, of batch: IngestBatch, store: String) {
        for column in EventColumn.allCases {
            let expected: ExportedEvent.Cell = column.kind == .integer
                ? .integer(batch.integer(column, row: row)) : .text(batch.text(column, row: row))
            if column.kind == .json {
                // PostgreSQL's JSONB gives the object back in its own spacing: compare objects.
                #expect(object(event[column]) != nil && object(event[column]) == object(expected), "\(store): \(column.name)")
            } else {
                #expect(event[column] == expected, "\(store): \(column.name)")
            }
        }
    }

    @Test("the event's own columns are the catalog's envelope (CH33 §3.2): every top-level field but the time's text form and the opt-in flag, and properties")
    func envelopeIsTheEventsColumns() {
        let envelope = RepositoryCatalog.catalog.envelope
        let stored = Set(EventColumn.allCases.filter { $0.origin == .event && $0.kind != .integer && $0 != .properties }.map(\.name))
        // event_time_utc is stored as event_time_ms; analytics_opt_in is true on every stored
        // event (CH33 §9: nothing is sent after an opt-out), so no column keeps it.
        #expect(Set(envelope.required + envelope.optional).subtracting(["event_time_utc", "analytics_opt_in"]) == stored)
        #expect(envelope.optional == [EventColumn.userID.name] && EventColumn.userID.isNullable)
        #expect(EventColumn.allCases.filter(\.isNullable) == [.userID])
    }

    @Test("the embedded store's events table is the description: names, order, SQLite types, nullability; a batch exports back column for column")
    func embeddedStore() async throws {
        let directory = try temporaryDirectory("handz-event-description")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        let batch = Self.batch()
        _ = try await store.append(batch)
        let exported = Locked<[ExportedEvent]>([])
        try await store.exportEvents(receivedFromMs: 0, toMs: .max) { event in exported.withLock { $0.append(event) } }
        store.closeNow()

        let database = try SQLiteDatabase(path: path, readOnly: true)
        let table = try database.prepare("SELECT name, type, \"notnull\" FROM pragma_table_info('events') ORDER BY cid")
            .query { ($0.text(0)!, $0.text(1)! + ($0.int64(2) == 1 ? " NOT NULL" : "")) }
        #expect(table.map(\.0) == EventColumn.allCases.map(\.name))
        #expect(table.map(\.1) == EventColumn.allCases.map { EventsDDL.columnType($0, .sqlite) })

        let events = exported.get().sorted { $0[.eventID].textValue < $1[.eventID].textValue }
        try #require(events.count == 2)
        for row in 0..<2 { Self.expectRow(events[row], is: row, of: batch, store: "sqlite") }
    }

    @Test("the PostgreSQL store's events table is the description: names, order, PostgreSQL types, nullability; a batch exports back column for column")
    func postgresStore() async throws {
        let server = try PostgresTestServer.shared.get()
        let url = try server.makeDatabase()
        let store = try await PostgresEventStore(url: url)
        let batch = Self.batch()
        _ = try await store.append(batch)
        let exported = Locked<[ExportedEvent]>([])
        try await store.exportEvents(receivedFromMs: 0, toMs: .max) { event in exported.withLock { $0.append(event) } }
        await store.close()

        let table = try server.psql(url, """
            SELECT column_name || '|' || upper(data_type)
                   || CASE WHEN collation_name IS NOT NULL THEN ' COLLATE "' || collation_name || '"' ELSE '' END
                   || CASE WHEN is_nullable = 'NO' THEN ' NOT NULL' ELSE '' END
            FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'events' AND column_name <> 'commit_xid' ORDER BY ordinal_position
            """).split(separator: "\n").map { $0.split(separator: "|", maxSplits: 1).map(String.init) }
        // Beside the description, the store's own bookkeeping: the commit order analysis nodes follow (issue 36).
        #expect(try server.psql(url, "SELECT data_type || ' ' || is_nullable FROM information_schema.columns WHERE table_name = 'events' AND column_name = 'commit_xid'") == "xid8 NO")
        #expect(table.map { $0.first ?? "" } == EventColumn.allCases.map(\.name))
        #expect(table.map { $0.last ?? "" } == EventColumn.allCases.map { EventsDDL.columnType($0, .postgres) })

        let events = exported.get().sorted { $0[.eventID].textValue < $1[.eventID].textValue }
        try #require(events.count == 2)
        for row in 0..<2 { Self.expectRow(events[row], is: row, of: batch, store: "postgres") }
    }
}

/// A JSON text cell parsed, for comparing objects whatever their spacing.
private func object(_ cell: ExportedEvent.Cell) -> NSDictionary? {
    (try? JSONSerialization.jsonObject(with: Data(cell.textValue.utf8))) as? NSDictionary
}

extension ExportedEvent.Cell {
    var textValue: String {
        if case .text(let value) = self { return value ?? "" }
        return ""
    }
}

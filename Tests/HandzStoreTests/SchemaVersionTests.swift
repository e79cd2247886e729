import Foundation
import HandzPostgresStore
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// A rollback to an older binary: a store a newer binary migrated is refused, by a stable code
/// and a message that says what to do, and left exactly as it was.
@Suite struct SchemaVersionTests {
    @Test("the embedded store refuses a file at a newer schema version and changes nothing in it")
    func embeddedStoreRefusesNewer() throws {
        let directory = try temporaryDirectory("handz-schema-version")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("events.sqlite").path
        try SQLiteEventStore(path: path).closeNow()
        let newer = StoreSchema.currentVersion + 1
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute("INSERT INTO schema_migrations(version, applied_time_ms, description) VALUES (\(newer), 0, 'from a newer binary')")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreSchemaError(found: newer, supported: StoreSchema.currentVersion)) {
            _ = try SQLiteEventStore(path: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let message = StoreSchemaError(found: newer, supported: StoreSchema.currentVersion).description
        #expect(message.hasPrefix("newer_schema:") && message.contains("restore the backup"))
    }

    @Test("the PostgreSQL store refuses a database at a newer schema version, saying so rather than 'cannot reach'")
    func postgresStoreRefusesNewer() async throws {
        let server = try PostgresTestServer.shared.get()
        let url = try server.makeDatabase()
        await (try await PostgresEventStore(url: url)).close()
        let current = Int(try server.psql(url, "SELECT MAX(version) FROM schema_migrations")) ?? 0
        _ = try server.psql(url, "INSERT INTO schema_migrations(version, applied_time_ms, description) VALUES (\(current + 1), 0, 'from a newer binary')")
        await #expect(throws: StoreSchemaError(found: current + 1, supported: current)) {
            _ = try await PostgresEventStore(url: url)
        }
    }
}

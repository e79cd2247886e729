import Foundation
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// The embedded store after things go wrong: a failed write, rows an older version stored.
@Suite struct StoreFaultTests {
    @Test("after a failed insert the writer recovers: the next batch commits instead of 503 until a restart")
    func writerRecoversAfterFailedInsert() async throws {
        let directory = try temporaryDirectory("handz-store-fault")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        // A real SQLite failure inside the writer's insert: a trigger, added from another connection.
        let side = try SQLiteDatabase(path: path)
        try side.execute("CREATE TRIGGER inject_failure BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'injected failure'); END")
        await #expect(throws: StoreError.self) { _ = try await store.append(StoreTests.batch(StoreTests.rows([(1, 1)]))) }
        #expect(!store.isHealthy)
        try side.execute("DROP TRIGGER inject_failure")
        for round in 0..<3 {
            let result = try await store.append(StoreTests.batch(StoreTests.rows([(2, UInt64(round * 2)), (2, UInt64(round * 2 + 1))])))
            #expect(result.accepted == 2)
        }
        #expect(store.isHealthy)
        #expect(try side.scalar("SELECT COUNT(*) FROM events") == 6)
        store.closeNow()
    }

    @Test("migration 2 lower-cases the UUID columns of rows an older version stored as sent")
    func migrationCanonicalizesIDs() async throws {
        let directory = try temporaryDirectory("handz-store-migrate")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        _ = try await store.append(StoreTests.batch(StoreTests.rows((0..<20).map { (3, UInt64($0)) })))
        store.closeNow()
        // As version 1 left them: ids in whatever case clients sent, migration 2 not applied.
        let database = try SQLiteDatabase(path: path)
        try database.execute("UPDATE events SET user_id = upper(user_id), install_id = upper(install_id), session_id = upper(session_id)")
        try database.execute("DELETE FROM schema_migrations WHERE version >= 2")
        try database.execute("DROP TABLE deletion_requests")
        // (The analytical layer's tables, which migrations 4 and 5 make, migration 9 already dropped.)
        try database.execute("DROP TABLE log_rewrites")
        try database.execute("CREATE INDEX events_by_name_time ON events(event_name, event_time_ms)")
        let reopened = try SQLiteEventStore(path: path)
        #expect(try database.scalar("SELECT COUNT(*) FROM events WHERE user_id GLOB '*[A-F]*' OR install_id GLOB '*[A-F]*' OR session_id GLOB '*[A-F]*'") == 0)
        #expect(try database.scalar("SELECT COUNT(*) FROM events WHERE user_id = '6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70'") == 20)
        #expect(try database.scalar("SELECT MAX(version) FROM schema_migrations") == Int64(StoreSchema.currentVersion))
        reopened.closeNow()
    }
}

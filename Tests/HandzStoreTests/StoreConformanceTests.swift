import Foundation
import HandzPostgresStore
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// The same guarantees from both stores: the embedded SQLite file and PostgreSQL (a real server
/// on loopback, started by the test support).
@Suite struct StoreConformanceTests {
    enum Engine: String, CaseIterable, CustomStringConvertible, Sendable {
        case sqlite, postgres
        var description: String { rawValue }
    }

    /// A fresh store of `engine`, a way to count rows with SQL, and the cleanup.
    struct Subject {
        let store: any EventStore
        let count: @Sendable (String) throws -> Int64
        let cleanup: @Sendable () -> Void
        /// SQLite: the database file and its companions (empty for PostgreSQL).
        var files: [URL] = []
    }

    static func subject(_ engine: Engine) async throws -> Subject {
        switch engine {
        case .sqlite:
            let directory = try temporaryDirectory("handz-conformance")
            let path = directory.appendingPathComponent("events.sqlite").path
            let store = try SQLiteEventStore(path: path)
            return Subject(store: store, count: { try SQLiteDatabase(path: path).scalar($0) ?? -1 },
                           cleanup: { try? FileManager.default.removeItem(at: directory) },
                           files: ["", "-wal", "-shm"].map { URL(fileURLWithPath: path + $0) })
        case .postgres:
            let server = try PostgresTestServer.shared.get()
            let url = try server.makeDatabase()
            let store = try await PostgresEventStore(url: url)
            return Subject(store: store, count: { Int64(try server.psql(url, $0)) ?? -1 }, cleanup: {})
        }
    }

    @Test("an event_id is stored once, within a batch and across batches", arguments: Engine.allCases)
    func dedupe(engine: Engine) async throws {
        let subject = try await Self.subject(engine)
        defer { subject.cleanup() }
        let first = try await subject.store.append(StoreTests.batch(StoreTests.rows([(1, 1), (2, 2), (1, 1)])))
        #expect(first.inserted == [true, true, false])
        let second = try await subject.store.append(StoreTests.batch(StoreTests.rows([(2, 2), (3, 3)])))
        #expect(second.inserted == [false, true])
        let stats = try await subject.store.stats(fromMs: .min, toMs: .max)
        #expect(stats.storedEvents == 3 && stats.accepted == 3 && stats.duplicates == 2 && stats.requests == 2)
        #expect(try subject.count("SELECT COUNT(*) FROM events") == 3)
        await subject.store.close()
    }

    @Test("concurrent appends all commit, each answered for its own rows", arguments: Engine.allCases)
    func concurrent(engine: Engine) async throws {
        let subject = try await Self.subject(engine)
        defer { subject.cleanup() }
        let store = subject.store
        let accepted = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<40 {
                group.addTask {
                    // Every task shares ten ids with the next one: exactly one of each pair wins.
                    let ids = (0..<50).map { (UInt64((task + $0 / 40) % 41), UInt64($0 % 40)) }
                    return try await store.append(StoreTests.batch(StoreTests.rows(ids))).accepted
                }
            }
            return try await group.reduce(0, +)
        }
        let stored = try subject.count("SELECT COUNT(*) FROM events")
        #expect(Int64(accepted) == stored)
        #expect(try subject.count("SELECT COUNT(DISTINCT event_id) FROM events") == stored)
        await store.close()
    }

    @Test("quarantine rows hold codes and sizes only", arguments: Engine.allCases)
    func quarantine(engine: Engine) async throws {
        let subject = try await Self.subject(engine)
        defer { subject.cleanup() }
        let record = RejectedEventRecord(eventName: "app_open", errors: [("invalid_enum", "/user_state"), ("pii_value", "/user_state")], byteSize: 512)
        _ = try await subject.store.append(StoreTests.batch(EventRows(), rejected: [record]))
        let stats = try await subject.store.stats(fromMs: .min, toMs: .max)
        #expect(stats.rejected == 1 && stats.rejectedByCode == ["invalid_enum": 1, "pii_value": 1])
        #expect(try subject.count("SELECT COUNT(*) FROM rejected_events WHERE error_codes = 'invalid_enum,pii_value'") == 1)
        await subject.store.close()
    }

    @Test("a deletion unlinks every event and audits a hash, not the id", arguments: Engine.allCases)
    func forgetUser(engine: Engine) async throws {
        let subject = try await Self.subject(engine)
        defer { subject.cleanup() }
        let user = "6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70"
        _ = try await subject.store.append(StoreTests.batch(StoreTests.rows((0..<30).map { (7, UInt64($0)) }, userID: user)))
        _ = try await subject.store.append(StoreTests.batch(StoreTests.rows([(8, 1)], userID: "9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a")))
        #expect(try await Deleting.forget(subject.store, user).eventsDeidentified == 30)
        #expect(try subject.count("SELECT COUNT(*) FROM events WHERE user_id = '\(user)'") == 0)
        #expect(try subject.count("SELECT COUNT(*) FROM events WHERE user_id IS NULL") == 30)
        #expect(try subject.count("SELECT COUNT(*) FROM privacy_audit WHERE action = 'forget_user' AND subject_hash <> '\(user)' AND rows_affected = 30") == 1)
        await subject.store.close()
    }

    @Test("a deletion matches the id in any case, also rows an older version stored in upper case", arguments: Engine.allCases)
    func forgetUserAnyCase(engine: Engine) async throws {
        let subject = try await Self.subject(engine)
        defer { subject.cleanup() }
        let user = "80b8de51-5c1a-4e7b-9a2d-3f4e5a6b7c8d"
        // Appended straight to the store, as a node of an older version wrote them: as sent.
        _ = try await subject.store.append(StoreTests.batch(StoreTests.rows((0..<12).map { (9, UInt64($0)) }, userID: user.uppercased())))
        _ = try await subject.store.append(StoreTests.batch(StoreTests.rows((0..<5).map { (10, UInt64($0)) }, userID: user)))
        #expect(try await Deleting.forget(subject.store, user.uppercased()).eventsDeidentified == 17)
        #expect(try subject.count("SELECT COUNT(*) FROM events WHERE user_id IS NOT NULL") == 0)
        await subject.store.close()
    }

    @Test("purge deletes what was received before the cutoff", arguments: Engine.allCases)
    func purge(engine: Engine) async throws {
        let subject = try await Self.subject(engine)
        defer { subject.cleanup() }
        _ = try await subject.store.append(StoreTests.batch(StoreTests.rows([(1, 1), (1, 2)]), receivedMs: 1_000))
        _ = try await subject.store.append(StoreTests.batch(StoreTests.rows([(2, 1)]), receivedMs: 5_000))
        #expect(try await subject.store.purge(receivedBeforeMs: 2_000, nowMs: 6_000) == PurgeResult(events: 2, rejectedEvents: 0, batches: 1))
        #expect(try subject.count("SELECT COUNT(*) FROM events") == 1)
        await subject.store.close()
    }

    @Test("after close, appends fail with closed", arguments: Engine.allCases)
    func closed(engine: Engine) async throws {
        let subject = try await Self.subject(engine)
        defer { subject.cleanup() }
        await subject.store.close()
        await #expect(throws: StoreError.closed) { _ = try await subject.store.append(StoreTests.batch(StoreTests.rows([(3, 3)]))) }
        #expect(!subject.store.isHealthy)
    }
}

import Foundation
import HandzPostgresStore
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Each install's first-seen time (issue 32 §6) on both stores: kept by the writer, by retention
/// and by de-identification as `InstallFirstSeen` says. (What the KPIs make of it:
/// `HandzQueryTests.InstallTimeDriftTests`.)
@Suite struct InstallFirstSeenTests {
    typealias Engine = StoreConformanceTests.Engine

    static let installA = "a1a1a1a1-0000-4000-8000-00000000000a"
    static let installB = "b2b2b2b2-0000-4000-8000-00000000000b"
    static let user = "5a1c3e7f-9b2d-4f6a-8c0e-1d3f5a7b9c2e"
    static let other = "9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a"
    static let t: Int64 = 1_772_409_600_000

    /// Rows of one install: (event id, name, event time), signed in as `user` when given.
    static func rows(_ install: String, user: String? = nil, _ events: [(id: UInt64, name: String, timeMs: Int64)]) -> EventRows {
        var rows = EventRows()
        for event in events {
            var fields: [EventRows.Field: String] = [
                .eventName: event.name, .installID: install, .sessionID: "2b6a9c1d-7e3f-4a5b-8c9d-0000000000\(String(format: "%02d", event.id % 100))",
                .userState: "free", .appVersion: "1.4.2", .buildNumber: "418", .platform: "iOS", .osVersion: "iOS 18.6",
                .deviceModel: "iPhone15,2", .locale: "en_US", .timezone: "UTC", .networkState: "online", .properties: "{}",
            ]
            fields[.userID] = user
            rows.append(eventID: (0xF1, event.id), eventTimeMs: event.timeMs, fields: fields)
        }
        return rows
    }

    /// A fresh store of `engine`, a way to read one integer with SQL, how to open it again, and the cleanup.
    struct Subject {
        let store: any EventStore
        let count: @Sendable (String) throws -> Int64
        let reopen: @Sendable () async throws -> any EventStore
        let cleanup: @Sendable () -> Void
    }

    static func subject(_ engine: Engine) async throws -> Subject {
        switch engine {
        case .sqlite:
            let directory = try temporaryDirectory("handz-first-seen")
            let path = directory.appendingPathComponent("events.sqlite").path
            return Subject(store: try SQLiteEventStore(path: path), count: { try SQLiteDatabase(path: path).scalar($0) ?? -1 },
                           reopen: { try SQLiteEventStore(path: path) }, cleanup: { try? FileManager.default.removeItem(at: directory) })
        case .postgres:
            let server = try PostgresTestServer.shared.get()
            let url = try server.makeDatabase()
            return Subject(store: try await PostgresEventStore(url: url), count: { Int64(try server.psql(url, $0)) ?? -1 },
                           reopen: { try await PostgresEventStore(url: url) }, cleanup: {})
        }
    }

    static func row(_ subject: Subject, _ install: String) throws -> (first: Int64, last: Int64) {
        (try subject.count("SELECT first_app_open_ms FROM install_first_seen WHERE install_id = '\(install)'"),
         try subject.count("SELECT last_received_ms FROM install_first_seen WHERE install_id = '\(install)'"))
    }

    @Test("the writer keeps each install's earliest stored app_open and latest receipt; other events and duplicates do not count",
          arguments: Engine.allCases)
    func writer(engine: Engine) async throws {
        let subject = try await Self.subject(engine)
        defer { subject.cleanup() }
        let store = subject.store
        // Out of order within a request, an earlier event of another name, a later request.
        _ = try await store.append(StoreTests.batch(Self.rows(Self.installA, [(1, "app_open", Self.t + 5), (2, "app_open", Self.t + 2),
                                                                              (3, "flow_saved_success", Self.t)]), receivedMs: 1_000))
        _ = try await store.append(StoreTests.batch(Self.rows(Self.installA, [(4, "app_open", Self.t + 10)]), receivedMs: 3_000))
        // A copy of event 2 sent again with another time is a duplicate: the stored copy's time stands.
        let again = try await store.append(StoreTests.batch(Self.rows(Self.installA, [(2, "app_open", Self.t - 100)]), receivedMs: 4_000))
        #expect(again.duplicates == 1)
        // An install that sent no app_open has no row.
        _ = try await store.append(StoreTests.batch(Self.rows(Self.installB, [(5, "flow_saved_success", Self.t)]), receivedMs: 1_000))
        #expect(try Self.row(subject, Self.installA) == (Self.t + 2, 3_000))
        #expect(try subject.count("SELECT COUNT(*) FROM install_first_seen") == 1)
        await store.close()
    }

    @Test("retention keeps an install's row, and its first time, while one of its app_opens is left; then drops it",
          arguments: Engine.allCases)
    func retention(engine: Engine) async throws {
        let subject = try await Self.subject(engine)
        defer { subject.cleanup() }
        let store = subject.store
        _ = try await store.append(StoreTests.batch(Self.rows(Self.installA, [(1, "app_open", Self.t)]), receivedMs: 1_000))
        _ = try await store.append(StoreTests.batch(Self.rows(Self.installA, [(2, "app_open", Self.t + 20 * 86_400_000)]), receivedMs: 5_000))
        _ = try await store.purge(receivedBeforeMs: 2_000, nowMs: 6_000)
        #expect(try Self.row(subject, Self.installA) == (Self.t, 5_000))
        _ = try await store.purge(receivedBeforeMs: 10_000, nowMs: 11_000)
        #expect(try subject.count("SELECT COUNT(*) FROM install_first_seen") == 0)
        await store.close()
    }

    @Test("a deletion leaves no time that joins the past to the device: the install keeps only 'before its stored events', the past holding the first app_open gets no row",
          arguments: Engine.allCases)
    func deletion(engine: Engine) async throws {
        let subject = try await Self.subject(engine)
        defer { subject.cleanup() }
        let store = subject.store
        let day: Int64 = 86_400_000
        // Install A: the user's past, then the device's present (signed out, received after the request).
        _ = try await store.append(StoreTests.batch(Self.rows(Self.installA, user: Self.user, [(1, "app_open", Self.t), (2, "app_open", Self.t + day)]), receivedMs: 1_000))
        _ = try await store.append(StoreTests.batch(Self.rows(Self.installA, [(3, "app_open", Self.t + 9 * day)]), receivedMs: 9_000))
        // Install B, shared: another account opened it first, signed in; the user later.
        _ = try await store.append(StoreTests.batch(Self.rows(Self.installB, user: Self.other, [(4, "app_open", Self.t)]), receivedMs: 1_000))
        _ = try await store.append(StoreTests.batch(Self.rows(Self.installB, user: Self.user, [(5, "app_open", Self.t + 2 * day)]), receivedMs: 1_000))
        let request = try await Deleting.forget(store, Self.user, nowMs: 5_000)
        #expect(request.installsDeidentified == 2)

        // A: its first app_open went with the past, which keeps the cohort by its own events.
        #expect(try Self.row(subject, Self.installA) == (InstallFirstSeen.beforeStoredEvents, 9_000))
        // B kept its first app_open (the other account's); the past that moved is marked, kept to the request's day end.
        #expect(try Self.row(subject, Self.installB) == (Self.t, 1_000))
        #expect(try subject.count("SELECT COUNT(*) FROM install_first_seen WHERE install_id NOT IN ('\(Self.installA)', '\(Self.installB)')") == 1)
        #expect(try subject.count("""
            SELECT COUNT(*) FROM install_first_seen f WHERE f.first_app_open_ms = 0 AND f.last_received_ms = \(day)
              AND f.install_id = (SELECT install_id FROM events WHERE event_time_ms = \(Self.t + 2 * day))
            """) == 1)
        // No row holds a time of the moved past.
        #expect(try subject.count("SELECT COUNT(*) FROM install_first_seen WHERE first_app_open_ms = \(Self.t) AND install_id <> '\(Self.installB)'") == 0)
        await store.close()
    }

    @Test("a store from before the table gets it filled from its app_opens, once", arguments: Engine.allCases)
    func migration(engine: Engine) async throws {
        let subject = try await Self.subject(engine)
        defer { subject.cleanup() }
        _ = try await subject.store.append(StoreTests.batch(Self.rows(Self.installA, [(1, "app_open", Self.t + 7), (2, "app_open", Self.t + 3)]), receivedMs: 2_000))
        await subject.store.close()
        // As a store of the schema before the table (SQLite 5, PostgreSQL 3): no table, its migration
        // and the later ones not recorded (they are idempotent, and run again).
        let version = engine == .sqlite ? 6 : 4
        _ = try subject.count("DROP TABLE install_first_seen")
        _ = try subject.count("DELETE FROM schema_migrations WHERE version >= \(version)")
        #expect(try subject.count("SELECT MAX(version) FROM schema_migrations") == version - 1)
        let reopened = try await subject.reopen()
        #expect(try Self.row(subject, Self.installA) == (Self.t + 3, 2_000))
        #expect(try subject.count("SELECT COUNT(*) FROM install_first_seen") == 1)
        #expect(try subject.count("SELECT COUNT(*) FROM schema_migrations WHERE version = \(version)") == 1)
        await reopened.close()
        // Its statements run again over the table they made (a migration retried after a crash
        // between them and their record): no error, nothing added or changed.
        _ = try subject.count("DELETE FROM schema_migrations WHERE version = \(version)")
        let again = try await subject.reopen()
        #expect(try Self.row(subject, Self.installA) == (Self.t + 3, 2_000))
        #expect(try subject.count("SELECT COUNT(*) FROM install_first_seen") == 1)
        await again.close()
    }

    @Test("the rule: the copy holding the install's first app_open keeps its cohort")
    func rule() {
        let day: Int64 = 86_400_000
        typealias Change = InstallFirstSeen.Change
        func change(_ first: Int64?, _ past: Int64?, _ last: Int64?) -> Change {
            InstallFirstSeen.afterDeidentification(installFirstMs: first, pastFirstAppOpenMs: past, installLastReceivedMs: last, cutoffMs: 3 * day + 5)
        }
        #expect(change(100, 100, 9_000) == .install(lastReceivedMs: 9_000))
        #expect(change(100, 100, nil) == .install(lastReceivedMs: 4 * day), "no app_open left: kept to the request's UTC day end")
        #expect(change(100, 200, nil) == .past(lastReceivedMs: 4 * day), "the install kept its first app_open")
        #expect(change(0, 200, 9_000) == .past(lastReceivedMs: 4 * day), "a second deletion on the same device")
        #expect(change(nil, 200, nil) == .none)
        #expect(change(100, nil, 9_000) == .none, "the past held no app_open")
    }
}

import Foundation
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// The embedded store against a real SQLite file in a temporary directory.
@Suite struct StoreTests {
    static func rows(_ ids: [(UInt64, UInt64)], userID: String? = "6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70", install: String = "0f7c3a52-9d1e-4a8b-b6c2-5e4d3c2b1a09") -> EventRows {
        var rows = EventRows()
        for (index, id) in ids.enumerated() {
            var fields: [EventRows.Field: String] = [
                .eventName: "app_open", .installID: install, .sessionID: "2b6a9c1d-7e3f-4a5b-8c9d-0e1f2a3b4c5d",
                .userState: "free", .appVersion: "1.4.2", .buildNumber: "418", .platform: "iOS", .osVersion: "iOS 18.6",
                .deviceModel: "iPhone15,2", .locale: "en_US", .timezone: "UTC", .networkState: "online",
                .properties: "{\"start_type\":\"cold\",\"launch_source\":\"direct\"}",
            ]
            fields[.userID] = userID
            rows.append(eventID: id, eventTimeMs: 1_772_000_000_000 + Int64(index), fields: fields)
        }
        return rows
    }

    static func batch(_ rows: EventRows, rejected: [RejectedEventRecord] = [], receivedMs: Int64 = 1_772_000_000_000) -> IngestBatch {
        IngestBatch(receivedTimeMs: receivedMs, keyID: "hzk_test", catalogVersion: "1.0.0", sentAtMs: nil, bodyBytes: 100, rows: rows, rejected: rejected)
    }

    func withStore(_ body: (SQLiteEventStore, URL) async throws -> Void) async throws {
        let directory = try temporaryDirectory("handz-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteEventStore(path: directory.appendingPathComponent("events.sqlite").path)
        try await body(store, directory)
        store.closeNow()
    }

    @Test("events are stored once: repeated event_ids are duplicates, within a batch and across batches")
    func dedupe() async throws {
        try await withStore { store, _ in
            let first = try await store.append(Self.batch(Self.rows([(1, 1), (2, 2), (1, 1)])))
            #expect(first.inserted == [true, true, false])
            let second = try await store.append(Self.batch(Self.rows([(2, 2), (3, 3)])))
            #expect(second.inserted == [false, true])
            let stats = try store.stats()
            #expect(stats.storedEvents == 3)
            #expect(stats.accepted == 3 && stats.duplicates == 2 && stats.requests == 2)
        }
    }

    @Test("a row missing a required column fails its commit: nothing stored, no receipt counting it stored")
    func requiredColumnMissing() async throws {
        try await withStore { store, directory in
            // EventRows built by hand (a tool, not the validated ingest path) can leave a required
            // envelope field out; the store must refuse, not skip the row and still count it.
            var rows = Self.rows([(5, 1)])
            rows.append(eventID: (5, 2), eventTimeMs: 1_772_000_000_100, fields: [.eventName: "app_open", .installID: "0f7c3a52-9d1e-4a8b-b6c2-5e4d3c2b1a09"])
            await #expect(throws: StoreError.self) { _ = try await store.append(Self.batch(rows)) }
            let database = try SQLiteDatabase(path: directory.appendingPathComponent("events.sqlite").path, readOnly: true)
            #expect(try database.scalar("SELECT COUNT(*) FROM events") == 0, "the whole commit rolled back")
            #expect(try database.scalar("SELECT COUNT(*) FROM batches") == 0, "no receipt")
            // The writer recovers: the next whole batch commits.
            let next = try await store.append(Self.batch(Self.rows([(5, 3)])))
            #expect(next.inserted == [true])
        }
    }

    @Test("closing the store leaves its WAL empty, so the next process to open it has none to replay")
    func closeEmptiesTheWAL() async throws {
        try await withStore { store, directory in
            _ = try await store.append(Self.batch(Self.rows((0..<200).map { (9, UInt64($0)) })))
            let wal = directory.appendingPathComponent("events.sqlite-wal").path
            let before = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
            #expect(before > 0, "the append is in the WAL until a checkpoint")
            store.closeNow()
            let after = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
            #expect(after == 0)
            let reopened = try SQLiteDatabase(path: directory.appendingPathComponent("events.sqlite").path, readOnly: true)
            #expect(try reopened.scalar("SELECT COUNT(*) FROM events") == 200)
        }
    }

    @Test("concurrent appends all commit, each answered with its own rows")
    func concurrentAppends() async throws {
        try await withStore { store, _ in
            let accepted = try await withThrowingTaskGroup(of: Int.self) { group in
                for task in 0..<40 {
                    group.addTask {
                        let ids = (0..<50).map { (UInt64(task), UInt64($0)) }
                        return try await store.append(Self.batch(Self.rows(ids))).accepted
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(accepted == 2_000)
            #expect(try store.stats().storedEvents == 2_000)
        }
    }

    @Test("the quarantine keeps codes, paths and sizes — never a value")
    func quarantine() async throws {
        try await withStore { store, directory in
            let record = RejectedEventRecord(eventName: "app_open", errors: [("invalid_enum", "/user_state"), ("pii_value", "/user_state")], byteSize: 512)
            let anonymous = RejectedEventRecord(eventName: nil, errors: [("unknown_event", "/event_name")], byteSize: 300)
            _ = try await store.append(Self.batch(EventRows(), rejected: [record, anonymous]))
            let stats = try store.stats()
            #expect(stats.rejected == 2)
            #expect(stats.rejectedByCode == ["invalid_enum": 1, "pii_value": 1, "unknown_event": 1])
            let database = try SQLiteDatabase(path: directory.appendingPathComponent("events.sqlite").path)
            let columns = try database.prepare("SELECT name FROM pragma_table_info('rejected_events')").query { $0.text(0) ?? "" }
            #expect(Set(columns) == ["id", "received_time_ms", "key_id", "event_name", "error_codes", "errors", "byte_size"])
        }
    }

    @Test("a deletion leaves no row and no byte on disk carrying the user_id; the audit keeps a hash")
    func forgetUser() async throws {
        try await withStore { store, directory in
            let user = "6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70"
            let other = "9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a"
            _ = try await store.append(Self.batch(Self.rows((0..<300).map { (7, UInt64($0)) }, userID: user)))
            _ = try await store.append(Self.batch(Self.rows((0..<10).map { (8, UInt64($0)) }, userID: other)))
            let request = try await Deleting.forget(store, user)
            #expect(request.eventsDeidentified == 300 && request.state == .completed)
            let path = directory.appendingPathComponent("events.sqlite").path
            let database = try SQLiteDatabase(path: path)
            #expect(try database.scalar("SELECT COUNT(*) FROM events WHERE user_id = ?1", [.text(user)]) == 0)
            #expect(try database.scalar("SELECT COUNT(*) FROM events WHERE user_id IS NULL") == 300)
            #expect(try database.scalar("SELECT COUNT(*) FROM events WHERE user_id = ?1", [.text(other)]) == 10)
            #expect(try database.scalar("SELECT COUNT(*) FROM deletion_requests WHERE user_id IS NOT NULL") == 0)
            #expect(try database.scalar("SELECT rows_affected FROM privacy_audit WHERE action = 'forget_user'") == 300)
            let hash = try database.prepare("SELECT subject_hash FROM privacy_audit").query { $0.text(0) ?? "" }.first ?? ""
            #expect(hash == request.subjectHash)
            #expect(hash.count == 64 && !hash.contains(user))
            store.closeNow()
            // No file of the store holds the id any more (secure_delete, WAL truncated).
            for suffix in ["", "-wal", "-shm"] {
                guard let bytes = FileManager.default.contents(atPath: path + suffix) else { continue }
                #expect(bytes.range(of: Data(user.utf8)) == nil, "found in \(suffix)")
            }
        }
    }

    @Test("purge deletes what was received before the cutoff and keeps the rest")
    func purge() async throws {
        try await withStore { store, _ in
            _ = try await store.append(Self.batch(Self.rows([(1, 1), (1, 2)]), rejected: [RejectedEventRecord(eventName: nil, errors: [("malformed_json", "")], byteSize: 3)], receivedMs: 1_000))
            _ = try await store.append(Self.batch(Self.rows([(2, 1)]), receivedMs: 5_000))
            let result = try store.purge(receivedBeforeMs: 2_000)
            #expect(result == PurgeResult(events: 2, rejectedEvents: 1, batches: 1))
            #expect(try store.stats().storedEvents == 1)
        }
    }

    @Test("reopening runs no migration twice and keeps the data; close drains queued writes")
    func reopen() async throws {
        let directory = try temporaryDirectory("handz-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        async let a = store.append(Self.batch(Self.rows((0..<500).map { (1, UInt64($0)) })))
        async let b = store.append(Self.batch(Self.rows((0..<500).map { (2, UInt64($0)) })))
        _ = try await (a, b)
        store.closeNow()
        await #expect(throws: StoreError.closed) { _ = try await store.append(Self.batch(Self.rows([(3, 3)]))) }
        let reopened = try SQLiteEventStore(path: path)
        #expect(try reopened.stats().storedEvents == 1_000)
        let database = try SQLiteDatabase(path: path)
        #expect(try database.scalar("SELECT COUNT(*) FROM schema_migrations") == Int64(StoreSchema.migrations.count))
        #expect(try database.scalar("PRAGMA page_size") == 8192)
        reopened.closeNow()
    }

    @Test("the readable view shows canonical UUIDs and ISO-8601 times")
    func readableView() async throws {
        try await withStore { store, directory in
            _ = try await store.append(Self.batch(Self.rows([(0x0190_a5e2_6c1d_7b3e, 0x9f00_4c2a_1b3d_5e6f)])))
            let database = try SQLiteDatabase(path: directory.appendingPathComponent("events.sqlite").path)
            let row = try database.prepare("SELECT event_id, event_time_utc FROM events_readable").query { ($0.text(0) ?? "", $0.text(1) ?? "") }.first
            #expect(row?.0 == "0190a5e2-6c1d-7b3e-9f00-4c2a1b3d5e6f")
            #expect(row?.1 == "2026-02-25T06:13:20.000Z")
        }
    }
}

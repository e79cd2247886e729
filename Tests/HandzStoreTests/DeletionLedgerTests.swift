import Foundation
import HandzCompression
import HandzLake
import HandzLifecycle
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Test helpers: a deletion carried out the way `forget-user` does it.
enum Deleting {
    /// Records a request for `userID` at `nowMs` and works it to the end (no lake unless given).
    static func forget(_ store: any EventStore, _ userID: String, nowMs: Int64 = Int64(Date().timeIntervalSince1970 * 1000),
                       lake: LakeExporter? = nil, clockMs: Int64? = nil) async throws -> DeletionRequest {
        let (request, _) = try await store.requestDeletion(userID: userID, nowMs: nowMs)
        _ = try await worker(store, lake: lake, clockMs: clockMs ?? nowMs).runUntilIdle()
        return try #require(try await store.deletionRequest(id: request.id))
    }

    static func worker(_ store: any EventStore, lake: LakeExporter? = nil, clockMs: Int64, owner: String = "test") -> DeletionWorker {
        DeletionWorker(store: store, lake: lake, owner: owner, clock: { clockMs })
    }
}

/// The deletion ledger and retention on both stores (issue 14): de-identification that keeps the
/// past countable, every copy reached (store files, PostgreSQL data directory, lake), leases, and
/// retention at its UTC boundary.
@Suite struct DeletionLedgerTests {
    typealias Engine = StoreConformanceTests.Engine

    static let user = "5a1c3e7f-9b2d-4f6a-8c0e-1d3f5a7b9c2e"
    static let other = "9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a"
    static let installA = "a1a1a1a1-0000-4000-8000-00000000000a"
    static let installB = "b2b2b2b2-0000-4000-8000-00000000000b"
    static let installC = "c3c3c3c3-0000-4000-8000-00000000000c"
    /// 2026-03-02T00:00:00Z; the events span three days, the request comes on the third.
    static let day0: Int64 = 1_772_409_600_000
    static let hour: Int64 = 3_600_000
    static let requestMs = day0 + 2 * 86_400_000 + 21 * hour

    struct Row {
        var id: UInt64
        var receivedMs: Int64
        var install: String
        var session: String
        var user: String?
        var name = "app_open"
        var properties = "{\"start_type\":\"cold\",\"launch_source\":\"direct\"}"
    }

    static func session(_ n: Int) -> String { String(format: "5e551010-0000-4000-8000-%012d", n) }

    /// The user on installs A and B over three days (signed in and out), another user on C, a
    /// crash report naming one of A's sessions, a session of A still open at the request, and A's
    /// events after the request (anonymous, as CH33 §9 makes them).
    static let rows: [Row] = [
        Row(id: 1, receivedMs: day0 + 10 * hour, install: installA, session: session(1), user: user),
        Row(id: 2, receivedMs: day0 + 10 * hour + 5, install: installA, session: session(1), user: nil),
        Row(id: 3, receivedMs: day0 + 86_400_000 + 5 * hour, install: installB, session: session(2), user: user),
        Row(id: 4, receivedMs: day0 + 86_400_000 + 5 * hour + 1, install: installA, session: session(3), user: user,
            name: "crash_reported", properties: "{\"crashed_session_id\":\"\(session(1))\"}"),
        Row(id: 5, receivedMs: day0 + 2 * 86_400_000 + 20 * hour, install: installA, session: session(4), user: user),
        Row(id: 6, receivedMs: day0 + 2 * 86_400_000 + 20 * hour, install: installC, session: session(5), user: other),
        Row(id: 7, receivedMs: requestMs, install: installA, session: session(4), user: nil),
        // After the request: the open session goes on, then a new one.
        Row(id: 8, receivedMs: requestMs + hour, install: installA, session: session(4), user: nil),
        Row(id: 9, receivedMs: requestMs + hour + 1, install: installA, session: session(6), user: nil),
    ]

    static func fill(_ store: any EventStore) async throws {
        for row in rows {
            var events = EventRows()
            var fields: [EventRows.Field: String] = [
                .eventName: row.name, .installID: row.install, .sessionID: row.session, .userState: row.user == nil ? "signed_out" : "free",
                .appVersion: "1.4.2", .buildNumber: "418", .platform: "iOS", .osVersion: "iOS 18.6", .deviceModel: "iPhone15,2",
                .locale: "en_US", .timezone: "UTC", .networkState: "online", .properties: row.properties,
            ]
            fields[.userID] = row.user
            events.append(eventID: (9, row.id), eventTimeMs: row.receivedMs - 1_000, fields: fields)
            _ = try await store.append(StoreTests.batch(events, receivedMs: row.receivedMs))
        }
    }

    /// What funnels and KPIs count over the days before the request, per event name: events,
    /// installs and sessions (the numbers a deletion must not change).
    static func pastCounts(_ subject: StoreConformanceTests.Subject) throws -> [Int64] {
        try ["app_open", "crash_reported"].flatMap { name in
            try ["COUNT(*)", "COUNT(DISTINCT install_id)", "COUNT(DISTINCT session_id)"].map {
                try subject.count("SELECT \($0) FROM events WHERE event_name = '\(name)' AND received_time_ms <= \(requestMs)")
            }
        } + [try subject.count("SELECT COUNT(DISTINCT install_id) FROM events WHERE received_time_ms <= \(requestMs)")]
    }

    @Test("a deletion de-identifies the user's past on every install, keeps it countable, reaches every copy, and is idempotent",
          arguments: Engine.allCases)
    func deidentifies(engine: Engine) async throws {
        let subject = try await StoreConformanceTests.subject(engine)
        defer { subject.cleanup() }
        try await Self.fill(subject.store)
        let lakeRoot = try temporaryDirectory("handz-deletion-lake")
        defer { try? FileManager.default.removeItem(at: lakeRoot) }
        let lake = LakeExporter(root: lakeRoot)
        _ = try await lake.export(from: subject.store, receivedFromMs: Self.day0, toMs: Self.requestMs + 3 * Self.hour)
        try await subject.store.registerLake()
        let before = try Self.pastCounts(subject)

        let request = try await Deleting.forget(subject.store, Self.user.uppercased(), nowMs: Self.requestMs, lake: lake, clockMs: Self.requestMs + 3 * Self.hour)
        #expect(request.state == .completed && request.storeStep == .done && request.oldVersionsStep == .done && request.lakeStep == .done)
        #expect(request.installsDeidentified == 2 && request.eventsDeidentified == 6 && request.sessionsDeidentified == 4)
        #expect(request.partitionsRewritten == 4)

        // Countable as before, by install and by session.
        #expect(try Self.pastCounts(subject) == before)
        // Tied to no device: the past holds neither real install, nor a session that goes on after.
        #expect(try subject.count("SELECT COUNT(*) FROM events WHERE user_id IS NOT NULL AND lower(user_id) = '\(Self.user)'") == 0)
        #expect(try subject.count("SELECT COUNT(*) FROM events WHERE install_id IN ('\(Self.installA)', '\(Self.installB)') AND received_time_ms <= \(Self.requestMs)") == 0)
        #expect(try subject.count("SELECT COUNT(*) FROM events WHERE install_id = '\(Self.installA)' AND received_time_ms > \(Self.requestMs)") == 2)
        #expect(try subject.count("""
            SELECT COUNT(*) FROM events p JOIN events f ON p.session_id = f.session_id OR p.install_id = f.install_id
            WHERE p.received_time_ms <= \(Self.requestMs) AND f.received_time_ms > \(Self.requestMs)
            """) == 0)
        // The crash report follows its session's new id (the crash-free KPI still joins).
        let crashed = engine == .sqlite ? "json_extract(c.properties, '$.crashed_session_id')" : "c.properties ->> 'crashed_session_id'"
        #expect(try subject.count("""
            SELECT COUNT(*) FROM events c JOIN events s ON s.session_id = \(crashed) AND s.event_id <> c.event_id
            WHERE c.event_name = 'crash_reported'
            """) == 2)
        #expect(try subject.count("SELECT COUNT(*) FROM events WHERE properties::text LIKE '%\(Self.session(1))%'".replacingOccurrences(of: "::text", with: engine == .sqlite ? "" : "::text")) == 0)
        // Another user's events are untouched.
        #expect(try subject.count("SELECT COUNT(*) FROM events WHERE user_id = '\(Self.other)' AND install_id = '\(Self.installC)'") == 1)
        // The ledger and the audit keep a salted hash and counts, not the id.
        #expect(try subject.count("SELECT COUNT(*) FROM deletion_requests WHERE user_id IS NOT NULL") == 0)
        #expect(try subject.count("SELECT COUNT(*) FROM privacy_audit WHERE subject_hash = '\(request.subjectHash)' AND rows_affected = 6") == 1)

        // A repeated request is a no-op.
        let (again, created) = try await subject.store.requestDeletion(userID: Self.user, nowMs: Self.requestMs + 4 * Self.hour)
        #expect(!created && again.id == request.id)
        #expect(try subject.count("SELECT COUNT(*) FROM deletion_requests") == 1)

        // No byte of the id in any lake file, and the lake agrees with the store.
        let lines = try LakeExportTests.read(lakeRoot).values.joined()
        #expect(lines.count == Self.rows.count)
        #expect(!lines.contains { ($0["install_id"] as? String) == Self.installA && ($0["received_time_ms"] as? Int64 ?? 0) <= Self.requestMs })
        for file in FileManager.default.enumerator(at: lakeRoot, includingPropertiesForKeys: nil)?.compactMap({ $0 as? URL }) ?? [] where file.pathExtension == "gz" {
            let text = try Gzip.decompress(Array(try Data(contentsOf: file)), limit: 1 << 24)
            #expect(!String(decoding: text, as: UTF8.self).contains(Self.user), "found in \(file.lastPathComponent)")
        }
        await subject.store.close()
        try Self.expectNoBytes(of: Self.user, engine: engine, subject: subject)
    }

    /// The user id is in no file of the store: the SQLite file and its WAL, or PostgreSQL's
    /// relation files of the test's database after the worker's `VACUUM FULL` and a checkpoint. PostgreSQL's write-ahead
    /// log (`pg_wal`) is left out: it keeps the original inserts until its segments are recycled
    /// (HandzServer docs, "Privacy": what the operator does about it).
    static func expectNoBytes(of text: String, engine: Engine, subject: StoreConformanceTests.Subject) throws {
        let needle = Data(text.utf8)
        var files: [URL] = []
        switch engine {
        case .sqlite:
            files = subject.files
        case .postgres:
            _ = try subject.count("CHECKPOINT")
            let server = try PostgresTestServer.shared.get()
            // This test's database only: others on the shared server hold the same synthetic rows.
            let database = try subject.count("SELECT oid FROM pg_database WHERE datname = current_database()")
            let base = server.dataDirectory.appendingPathComponent("base/\(database)")
            files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        }
        #expect(!files.isEmpty)
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: file.path), bytes.range(of: needle) != nil else { continue }
            // Which relation, so a failure says where the id stayed (an oid under 16384 is a
            // system catalog: 2619 is pg_statistic).
            let relation = engine == .postgres ? (Int64(file.lastPathComponent).map { node in
                (try? subject.count("SELECT COALESCE((SELECT c.oid FROM pg_class c WHERE pg_relation_filenode(c.oid) = \(node) LIMIT 1), -1)")) ?? -1
            } ?? -1) : -1
            Issue.record("found in \(file.path) (relation oid \(relation))")
        }
    }

    @Test("one worker at a time: a leased request is not claimed by another until the lease ends", arguments: Engine.allCases)
    func lease(engine: Engine) async throws {
        let subject = try await StoreConformanceTests.subject(engine)
        defer { subject.cleanup() }
        try await Self.fill(subject.store)
        _ = try await subject.store.requestDeletion(userID: Self.other, nowMs: Self.requestMs)
        // The store step waits until every node can know of the request (DeletedSubjects).
        let early = try await subject.store.claimDeletion(owner: "node-1", canRewriteLake: false, oldVersionsDueMs: Self.requestMs,
                                                          storeDueMs: Self.requestMs - 1, nowMs: Self.requestMs, leaseMs: 60_000)
        #expect(early == nil)
        let first = try await subject.store.claimDeletion(owner: "node-1", canRewriteLake: false, oldVersionsDueMs: Self.requestMs,
                                                          storeDueMs: Self.requestMs, nowMs: Self.requestMs, leaseMs: 60_000)
        #expect(first?.owner == "node-1" && first?.userID == Self.other)
        let second = try await subject.store.claimDeletion(owner: "node-2", canRewriteLake: false, oldVersionsDueMs: Self.requestMs, storeDueMs: Self.requestMs, nowMs: Self.requestMs + 59_999, leaseMs: 60_000)
        #expect(second == nil)
        // node-1 died: after its lease, node-2 takes the request and finishes it.
        let taken = try await subject.store.claimDeletion(owner: "node-2", canRewriteLake: false, oldVersionsDueMs: Self.requestMs, storeDueMs: Self.requestMs, nowMs: Self.requestMs + 60_001, leaseMs: 60_000)
        #expect(taken?.request.attempts == 2)
        let finished = try await Deleting.worker(subject.store, clockMs: Self.requestMs + 100_000).runUntilIdle()
        #expect(finished.isEmpty)  // still leased by node-2
        _ = try await Deleting.worker(subject.store, clockMs: Self.requestMs + 100_000, owner: "node-2").work(try #require(taken))
        #expect(try await subject.store.deletionRequests(limit: 10).first?.state == .completed)
        await subject.store.close()
    }

    @Test("retention removes what was received before the cutoff, in the store and the lake, and keeps the cutoff itself",
          arguments: Engine.allCases)
    func retention(engine: Engine) async throws {
        let subject = try await StoreConformanceTests.subject(engine)
        defer { subject.cleanup() }
        // 30 days before now falls at 10:30 UTC: the 10:00 partition straddles it.
        let cutoff = Self.day0 + 10 * Self.hour + 1_800_000
        let now = cutoff + 30 * 86_400_000
        let received = [cutoff - Self.hour, cutoff - 1, cutoff, cutoff + 1, now - 1]
        for (index, time) in received.enumerated() {
            let record = RejectedEventRecord(eventName: "app_open", errors: [("invalid_enum", "/user_state")], byteSize: 100)
            _ = try await subject.store.append(StoreTests.batch(StoreTests.rows([(11, UInt64(index))], userID: nil), rejected: [record], receivedMs: time))
        }
        // A deletion completed before the cutoff goes from the ledger; one completed after stays.
        _ = try await Deleting.forget(subject.store, "7d0e0e0e-1111-4222-8333-444455556666", nowMs: cutoff - 10, clockMs: cutoff - 5)
        _ = try await Deleting.forget(subject.store, "8e1f1f1f-1111-4222-8333-444455556666", nowMs: cutoff + 10, clockMs: cutoff + 10)
        let lakeRoot = try temporaryDirectory("handz-retention-lake")
        defer { try? FileManager.default.removeItem(at: lakeRoot) }
        let lake = LakeExporter(root: lakeRoot)
        _ = try await lake.export(from: subject.store, receivedFromMs: cutoff - 2 * Self.hour, toMs: now)

        let outcome = try #require(try await RetentionRunner(store: subject.store, lake: lake, policy: .days(30)).run(nowMs: now))
        #expect(outcome.cutoffMs == cutoff)
        #expect(outcome.store.events == 2 && outcome.store.rejectedEvents == 2 && outcome.store.batches == 2 && outcome.store.deletionRequests == 1)
        #expect(outcome.lakePartitionsRemoved == 1)
        #expect(try subject.count("SELECT MIN(received_time_ms) FROM events") == cutoff)
        #expect(try subject.count("SELECT COUNT(*) FROM rejected_events WHERE received_time_ms < \(cutoff)") == 0)
        #expect(try subject.count("SELECT COUNT(*) FROM batches") == 3)
        #expect(try subject.count("SELECT COUNT(*) FROM deletion_requests") == 1)
        let partitions = try LakeExportTests.read(lakeRoot)
        let times = partitions.values.joined().compactMap { $0["received_time_ms"] as? Int64 }.sorted()
        #expect(times == [cutoff, cutoff + 1, now - 1])
        #expect(!partitions.keys.contains("dt=2026-03-02/hour=09"))
        #expect(try await RetentionRunner(store: subject.store, lake: lake, policy: .off).run(nowMs: now) == nil)
        let status = try await subject.store.lifecycleStatus(includeOldestEvent: true)
        #expect(status.oldestEventMs == cutoff && status.pendingDeletions == 0 && status.oldestPendingDeletionMs == nil)
        await subject.store.close()
    }

    @Test("retention periods: calendar months in UTC, days, off; bad spellings refused")
    func policies() {
        let march31 = Int64(1_774_915_200_000)  // 2026-03-31T00:00:00Z
        #expect(RetentionPolicy("13mo")?.cutoffMs(nowMs: march31) == 1_740_700_800_000)  // 2025-02-28: no Feb 31
        #expect(RetentionPolicy("400d")?.cutoffMs(nowMs: march31) == march31 - 400 * 86_400_000)
        #expect(RetentionPolicy("off") == .off && RetentionPolicy.off.cutoffMs(nowMs: march31) == nil)
        #expect(RetentionPolicy.default == .months(13))
        for bad in ["", "13", "0mo", "-1d", "13months", "1y"] { #expect(RetentionPolicy(bad) == nil, "\(bad)") }
    }

    @Test("a new SQLite store is readable by its owner only")
    func privateFiles() async throws {
        let directory = try temporaryDirectory("handz-mode")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        _ = try await store.append(StoreTests.batch(StoreTests.rows([(12, 1)])))
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            let mode = try FileManager.default.attributesOfItem(atPath: path + suffix)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(suffix)")
        }
        store.closeNow()
    }

    @Test("every catalogued property that holds a session id is de-identified with the sessions")
    func sessionReferences() {
        // practice_session_id names a drill practice (content, like flow_id), not an app session.
        let named = RepositoryCatalog.catalog.properties.keys.filter { $0.hasSuffix("session_id") && !["session_id", "practice_session_id"].contains($0) }
        #expect(Set(named) == Set(Deidentification.sessionReferenceProperties))
    }
}

import Foundation
import HandzPostgresStore
import HandzStore
import HandzTestSupport
import Testing

/// `scripts/postgres-roles.sql` on a real server (issue 14 item 5; CH33 §10: "store analytics data
/// with least privilege; restrict internal access"): what handz_analyst and handz_ingest may and
/// may not do. Roles are cluster-wide and the shared test server runs other suites beside this
/// one, so each test applies the (idempotent) script to a database of its own, over roles that
/// may already exist.
@Suite(.serialized) struct PostgresRolesTests {
    static let analyst = "handz_analyst"
    static let ingest = "handz_ingest"
    static let user = "3f9b2c1d-8e7a-4b6c-9d5e-1a2b3c4d5e6f"
    // Not StoreTests.rows' install and session: the guest row the last test adds keeps its own.
    static let install = "9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b"
    static let session = "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d"
    static let receivedMs: Int64 = 1_772_000_000_000

    /// A migrated database holding three events of `user` (one a crash report naming `session`),
    /// one quarantined event and one batch receipt, with the roles applied.
    struct Database {
        let server: PostgresTestServer
        let url: String

        /// The database's URL for another role (the test server trusts every role on loopback).
        func roleURL(_ role: String) -> String {
            self.url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://\(role)@")
        }

        /// `sql` as the superuser.
        func superuser(_ sql: String) throws -> String { try server.psql(url, sql) }

        /// `sql` run as `role`: `SET ROLE` first in the same psql -c (one session). Returns the
        /// last output line, since psql prints the `SET` tag before the result.
        func run(as role: String, _ sql: String) throws -> String {
            let output = try server.psql(url, "SET ROLE \(role); \(sql)")
            return output.split(separator: "\n").last.map(String.init) ?? ""
        }

        /// Whether `sql` as `role` fails with `message` — that message, not any error: a typo in
        /// the SQL fails too, and must not pass for a refused privilege.
        func fails(as role: String, _ sql: String, with message: String = "permission denied") -> Bool {
            do {
                _ = try run(as: role, sql)
                return false
            } catch {
                return "\(error)".contains(message)
            }
        }
    }

    static func rows() -> EventRows {
        var rows = EventRows()
        let crash = "{\"crashed_session_id\":\"\(session)\"}"
        for (index, (name, properties)) in [("app_open", "{\"start_type\":\"cold\"}"), ("screen_view", "{}"), ("crash_reported", crash)].enumerated() {
            rows.append(eventID: (21, UInt64(index)), eventTimeMs: 1_772_000_000_000 + Int64(index), fields: [
                .eventName: name, .installID: install, .sessionID: session, .userID: user, .userState: "free",
                .appVersion: "1.4.2", .buildNumber: "418", .platform: "iOS", .osVersion: "iOS 18.6", .deviceModel: "iPhone15,2",
                .locale: "en_US", .timezone: "UTC", .networkState: "online", .properties: properties,
            ])
        }
        return rows
    }

    /// Migrates a new database as the superuser (so the script has to hand the tables to
    /// handz_admin), stores the rows, then applies the script twice: a re-run must succeed.
    static func database() async throws -> Database {
        let server = try PostgresTestServer.shared.get()
        let url = try server.makeDatabase()
        let store = try await PostgresEventStore(url: url)
        let rejected = RejectedEventRecord(eventName: "app_open", errors: [("invalid_enum", "/user_state")], byteSize: 200)
        _ = try await store.append(StoreTests.batch(rows(), rejected: [rejected], receivedMs: receivedMs))
        await store.close()
        let script = try String(contentsOf: RepositoryCatalog.root.appendingPathComponent("scripts/postgres-roles.sql"), encoding: .utf8)
        _ = try server.psql(url, script)
        _ = try server.psql(url, script)
        return Database(server: server, url: url)
    }

    @Test("the analyst role reads events without user_id and cannot write")
    func analyst() async throws {
        let db = try await Self.database()
        let analyst = Self.analyst
        // Column privileges: user_id is refused, so `SELECT *` and any filter on it are too.
        #expect(db.fails(as: analyst, "SELECT user_id FROM events"))
        #expect(db.fails(as: analyst, "SELECT * FROM events"))
        #expect(db.fails(as: analyst, "SELECT count(*) FROM events WHERE user_id IS NOT NULL"))
        #expect(try db.run(as: analyst, "SELECT count(*) FROM (SELECT event_id, install_id, properties FROM events) e") == "3")
        #expect(try db.run(as: analyst, "SELECT count(*) FROM (SELECT * FROM events_analyst) v") == "3")
        #expect(try db.run(as: analyst, "SELECT count(*) FROM rejected_events") == "1")
        #expect(try db.run(as: analyst, "SELECT count(*) FROM batches") == "1")

        // The grant and the view cover every events column but user_id: a column a migration adds
        // shows here, to be granted (or not) on purpose.
        let columns = "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema = 'public' AND table_name = "
        let expected = try db.superuser(columns + "'events' AND column_name <> 'user_id'")
        #expect(try db.superuser(columns + "'events_analyst'") == expected)
        #expect(try db.superuser("""
            SELECT string_agg(c.column_name, ',' ORDER BY c.ordinal_position) FROM information_schema.columns c
            JOIN information_schema.column_privileges p USING (table_schema, table_name, column_name)
            WHERE c.table_schema = 'public' AND c.table_name = 'events' AND p.grantee = 'handz_analyst' AND p.privilege_type = 'SELECT'
            """) == expected)

        // The script names every table (the superuser migrated them, the script hands each to
        // handz_admin): a table a migration adds stays the superuser's here until it is added there.
        #expect(try db.superuser("SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'public' AND tableowner <> 'handz_admin'") == "")

        for table in ["privacy_audit", "store_meta", "deletion_requests", "schema_migrations"] {
            #expect(db.fails(as: analyst, "SELECT count(*) FROM \(table)"), "\(table) is readable")
        }
        for sql in [
            "INSERT INTO events(event_id) VALUES ('x')",
            "UPDATE events SET event_name = 'x'",
            "DELETE FROM events",
            "UPDATE events_analyst SET event_name = 'x'",
            "DELETE FROM events_analyst",
            "INSERT INTO batches(received_time_ms, key_id, events, accepted, duplicates, rejected, body_bytes) VALUES (1, 'k', 1, 1, 0, 0, 1)",
            "DELETE FROM rejected_events",
            "TRUNCATE batches",
            "SELECT nextval('batches_id_seq')",
            "CREATE TABLE analyst_copy (event_id text)",
            "CREATE TEMP TABLE analyst_scratch (event_id text)",
        ] {
            #expect(db.fails(as: analyst, sql), "\(sql)")
        }
        #expect(try db.superuser("SELECT count(*) FROM events WHERE user_id IS NOT NULL") == "3")

        // LOGIN, no password (the operator sets one), no attribute beyond the grants.
        #expect(try db.superuser("""
            SELECT count(*) FROM pg_authid WHERE rolname IN ('handz_admin', 'handz_ingest', 'handz_analyst')
            AND rolcanlogin AND rolpassword IS NULL AND NOT rolsuper AND NOT rolcreaterole AND NOT rolcreatedb
            AND NOT rolbypassrls AND NOT rolreplication
            """) == "3")
    }

    @Test("the ingest role can write and de-identify but not change other columns or create tables")
    func ingest() async throws {
        let db = try await Self.database()
        let ingest = Self.ingest
        let event = """
            INSERT INTO events VALUES ('00000000-0000-4000-8000-000000000099', 'app_open', 1, 2, 'i', 's', 'u', 'free', '1', '1',
                                       'iOS', '18', 'm', 'en', 'UTC', 'online', 'k', '1', '{}')
            """
        #expect(try db.run(as: ingest, event) == "INSERT 0 1")
        // The BIGSERIAL ids come from the sequences.
        #expect(try db.run(as: ingest, "WITH b AS (INSERT INTO batches(received_time_ms, key_id, events, accepted, duplicates, rejected, body_bytes) VALUES (2, 'k', 1, 1, 0, 0, 1) RETURNING id) SELECT count(*) FROM b") == "1")
        #expect(try db.run(as: ingest, "WITH r AS (INSERT INTO rejected_events(received_time_ms, key_id, event_name, error_codes, errors, byte_size) VALUES (2, 'k', NULL, 'c', '[]', 1) RETURNING id) SELECT count(*) FROM r") == "1")
        #expect(try db.run(as: ingest, "WITH a AS (INSERT INTO privacy_audit(performed_time_ms, action, rows_affected) VALUES (2, 'purge', 0) RETURNING id) SELECT count(*) FROM a") == "1")

        // De-identification rewrites these four columns, and only these.
        #expect(try db.run(as: ingest, """
            WITH u AS (UPDATE events SET user_id = NULL, install_id = 'new-install', session_id = 'new-session'
                       WHERE user_id = '\(Self.user)' RETURNING 1) SELECT count(*) FROM u
            """) == "3")
        #expect(try db.run(as: ingest, """
            WITH u AS (UPDATE events SET properties = jsonb_set(properties, '{crashed_session_id}', to_jsonb('new-session'::text))
                       WHERE properties ->> 'crashed_session_id' = '\(Self.session)' RETURNING 1) SELECT count(*) FROM u
            """) == "1")
        for sql in [
            "UPDATE events SET event_name = 'x'",
            "UPDATE events SET received_time_ms = 0",
            "UPDATE batches SET accepted = 0",
            "UPDATE privacy_audit SET action = 'x'",
            "DELETE FROM store_meta",
            "TRUNCATE events",
            "INSERT INTO schema_migrations VALUES (99, 0, 'x')",
            "SELECT count(*) FROM events_analyst",
            "CREATE TABLE ingest_copy (event_id text)",
            "CREATE TEMP TABLE ingest_scratch (event_id text)",
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)",
        ] {
            #expect(db.fails(as: ingest, sql), "\(sql)")
        }
        #expect(db.fails(as: ingest, "ALTER TABLE events ADD COLUMN extra text", with: "must be owner of table events"))
        #expect(try db.superuser("SELECT count(*) FROM events WHERE event_name = 'x' OR received_time_ms = 0") == "0")

        // Retention purge.
        #expect(try db.run(as: ingest, "WITH d AS (DELETE FROM events WHERE received_time_ms < 100 RETURNING 1) SELECT count(*) FROM d") == "1")
        // VACUUM needs the table's or the database's owner (PostgreSQL 15); it cannot run after
        // SET ROLE in one psql -c (a transaction block), so this asks what VACUUM checks.
        #expect(try db.run(as: ingest, """
            SELECT pg_has_role(current_user, c.relowner, 'USAGE') OR pg_has_role(current_user, d.datdba, 'USAGE')
            FROM pg_class c, pg_database d WHERE c.oid = 'events'::regclass AND d.datname = current_database()
            """) == "f")
    }

    @Test("the follower role reads what an analysis node follows, in commit order, and writes nothing")
    func follower() async throws {
        let db = try await Self.database()
        let follower = "handz_follower"
        #expect(try db.run(as: follower, "SELECT count(*) FROM events WHERE user_id = '\(Self.user)'") == "3")
        #expect(try db.run(as: follower, "SELECT count(*) FROM deletion_requests") == "0")
        for sql in [
            "DELETE FROM events",
            "UPDATE events SET user_id = NULL",
            "INSERT INTO store_meta(key, value) VALUES ('audit_salt', '00')",
            "UPDATE deletion_requests SET user_id = NULL",
            "SELECT count(*) FROM privacy_audit",
            "SELECT count(*) FROM batches",
            "CREATE TABLE follower_copy (event_id text)",
        ] {
            #expect(db.fails(as: follower, sql), "\(sql)")
        }
        // The node's own reads, as the role: the horizon, the events in commit order, the ledger.
        let store = try await PostgresEventStore(url: db.roleURL(follower))
        let horizon = try await store.commitHorizon()
        let page = try await store.committedPage(after: FollowCursor(through: 0, horizon: horizon), limit: 100)
        #expect(page.count == 3 && page.batches.reduce(0) { $0 + $1.rows.count } == 3 && page.last != nil)
        let subjects = try await store.deletionSubjectsToFollow()
        #expect(subjects.hashes.isEmpty)
        await store.close()
    }

    @Test("the server's own queries run as handz_ingest, and VACUUM FULL is left to handz_admin")
    func serverAsIngest() async throws {
        let db = try await Self.database()
        let now = Self.receivedMs + 100_000
        // Opening it migrates nothing: the schema is current and handz_ingest may not run DDL.
        let store = try await PostgresEventStore(url: db.roleURL(Self.ingest))
        // A guest's event on another install: de-identification leaves it as it is.
        let appended = try await store.append(StoreTests.batch(StoreTests.rows([(22, 1)], userID: nil), receivedMs: Self.receivedMs))
        #expect(appended.accepted == 1)
        let stats = try await store.stats(fromMs: .min, toMs: .max)
        #expect(stats.storedEvents == 4 && stats.rejected == 1 && stats.requests == 2)

        try await store.registerLake()
        let (request, created) = try await store.requestDeletion(userID: Self.user, nowMs: now)
        #expect(created)
        let claimed = try await store.claimDeletion(owner: "roles-test", canRewriteLake: false, oldVersionsDueMs: now, storeDueMs: now, nowMs: now, leaseMs: 60_000)
        let claim = try #require(claimed)
        #expect(claim.request.id == request.id && claim.userID == Self.user)
        let result = try await store.deidentify(claim, nowMs: now)
        #expect(result.events == 3 && result.installs == 1 && result.sessions == 1)
        #expect(try db.superuser("SELECT count(*) FROM events WHERE user_id IS NOT NULL OR session_id = '\(Self.session)' OR properties ->> 'crashed_session_id' = '\(Self.session)'") == "0")
        #expect(try db.superuser("SELECT count(*) FROM events WHERE properties ->> 'crashed_session_id' = session_id") == "1")

        // Only the tables' owner may VACUUM FULL: the server reports it, handz_admin runs it.
        await #expect(throws: DeletionFailure.vacuumNotPermitted) { _ = try await store.reclaimOldVersions(nowMs: now) }
        let admin = try await PostgresEventStore(url: db.roleURL("handz_admin"))
        // A snapshot still open in the database (here a query that sleeps until cancelled) would
        // keep the old versions, and the id in them, through VACUUM FULL: the step waits for it
        // (5 s at most), then reports it and stays pending. psql runs on its own thread, not on
        // the few threads Swift's concurrency shares with the other tests; every wait is bounded.
        let (server, url) = (db.server, db.url)
        let sleeper = "SELECT pg_sleep(60)"
        Thread { _ = try? server.psql(url, sleeper) }.start()
        let sleepers = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = '\(sleeper)'"
        var sleeping = false
        for _ in 0..<300 where !sleeping {
            sleeping = try db.superuser(sleepers + " AND backend_xmin IS NOT NULL") == "1"
            if !sleeping { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(sleeping)
        await #expect(throws: DeletionFailure.oldSnapshotOpen) { _ = try await admin.reclaimOldVersions(nowMs: now) }
        _ = try db.superuser("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = '\(sleeper)'")
        var ended = false
        for _ in 0..<300 where !ended {
            ended = try db.superuser(sleepers) == "0"
            if !ended { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(ended)
        #expect(try await admin.reclaimOldVersions(nowMs: now) == 1)
        await admin.close()
        let settled = try await store.settleDeletion(id: request.id, failure: nil, nowMs: now)
        #expect(settled?.storeStep == .done && settled?.oldVersionsStep == .done)

        let purged = try await store.purge(receivedBeforeMs: .max, nowMs: now)
        #expect(purged.events == 4 && purged.rejectedEvents == 1 && purged.batches == 2)
        #expect(try db.superuser("SELECT count(*) FROM events") == "0")
        await store.close()
    }
}

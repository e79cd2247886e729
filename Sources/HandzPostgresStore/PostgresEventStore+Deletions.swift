import Foundation
import HandzSigning
import HandzStore
import Logging
import PostgresNIO

/// The deletion ledger and its steps on PostgreSQL (issue 14). The same semantics as the embedded
/// store (`SQLiteEventStore+Deletions.swift`); the lease is taken with `FOR UPDATE SKIP LOCKED`, so
/// among nodes sharing the database exactly one works a request at a time.
extension PostgresEventStore {
    public func requestDeletion(userID: String, nowMs: Int64) async throws -> (request: DeletionRequest, created: Bool) {
        let userID = userID.lowercased()
        return try await client.withTransaction(logger: logger) { connection in
            // Serialises requests for the same subject across nodes (released at commit).
            let salt = try await Self.salt(connection, logger: logger)
            let hash = Hex.encode(HMACSHA256.code(key: salt, data: Array(userID.utf8)))
            _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(hash)))", logger: logger)
            let existing = try await Self.requests(connection, logger: logger, where: "subject_hash = $1 ORDER BY (state = 'pending') DESC, received_time_ms DESC LIMIT 1", hash)
            if let request = existing.first {
                if request.state == .pending { return (request, false) }
                var remaining = false
                for try await exists in try await connection.query("SELECT EXISTS (SELECT 1 FROM events WHERE lower(user_id) = \(userID))", logger: logger).decode(Bool.self) {
                    remaining = exists
                }
                if !remaining { return (request, false) }
            }
            var lake = false
            for try await count in try await connection.query("SELECT COUNT(*)::BIGINT FROM store_meta WHERE key = 'lake_configured'", logger: logger).decode(Int64.self) {
                lake = count > 0
            }
            let request = DeletionRequest(id: Deidentification.freshID(), subjectHash: hash, receivedTimeMs: nowMs,
                                          oldVersionsStep: .pending, lakeStep: lake ? .pending : .notApplicable)
            _ = try await connection.query("""
                INSERT INTO deletion_requests(request_id, subject_hash, user_id, received_time_ms, state, store_step, old_versions_step, lake_step)
                VALUES (\(request.id), \(hash), \(userID), \(nowMs), 'pending', 'pending', 'pending', \(request.lakeStep.rawValue))
                """, logger: logger)
            return (request, true)
        }
    }

    public func deletionRequest(id: String) async throws -> DeletionRequest? {
        try await client.withConnection { connection in
            try await Self.requests(connection, logger: self.logger, where: "request_id = $1", id.lowercased()).first
        }
    }

    public func deletionRequests(limit: Int) async throws -> [DeletionRequest] {
        try await client.withConnection { connection in
            try await Self.requests(connection, logger: self.logger, where: "request_id <> $1 ORDER BY received_time_ms DESC, request_id LIMIT \(max(0, limit))", "")
        }
    }

    public func registerLake() async throws {
        _ = try await client.query("INSERT INTO store_meta(key, value) VALUES ('lake_configured', '1') ON CONFLICT (key) DO NOTHING", logger: logger)
    }

    public func claimDeletion(owner: String, canRewriteLake: Bool, oldVersionsDueMs: Int64, storeDueMs: Int64, nowMs: Int64, leaseMs: Int64) async throws -> DeletionClaim? {
        try await client.withTransaction(logger: logger) { connection in
            var bindings = PostgresBindings()
            bindings.append(nowMs)
            bindings.append(canRewriteLake ? 1 : 0)
            bindings.append(oldVersionsDueMs)
            bindings.append(storeDueMs)
            bindings.append(owner)
            bindings.append(nowMs + leaseMs)
            let sql = """
                UPDATE deletion_requests SET lease_owner = $5, lease_until_ms = $6, attempts = attempts + 1
                WHERE request_id = (SELECT request_id FROM deletion_requests WHERE \(DeletionLedgerSchema.claimableCondition)
                                    ORDER BY received_time_ms LIMIT 1 FOR UPDATE SKIP LOCKED)
                RETURNING request_id, user_id
                """
            var found: (String, String?)?
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).decode((String, String?).self) {
                found = row
            }
            guard let (id, userID) = found,
                  let request = try await Self.requests(connection, logger: logger, where: "request_id = $1", id).first else { return nil }
            return DeletionClaim(request: request, userID: userID, owner: owner)
        }
    }

    public func deidentify(_ claim: DeletionClaim, nowMs: Int64) async throws -> DeidentifyResult {
        guard let userID = claim.userID else { return DeidentifyResult() }
        let cutoff = claim.request.receivedTimeMs
        return try await client.withTransaction(logger: logger) { connection in
            var result = DeidentifyResult()
            var hours = Set<Int64>()
            var installs: [String] = []
            for try await install in try await connection.query("SELECT DISTINCT install_id FROM events WHERE lower(user_id) = \(userID)", logger: logger).decode(String.self) {
                installs.append(install)
            }
            for install in installs {
                let newInstall = Deidentification.freshID()
                // The install's past, without another account's signed-in rows (see Deidentification).
                for try await hour in try await connection.query("""
                    SELECT DISTINCT received_time_ms / 3600000 FROM events
                    WHERE install_id = \(install) AND received_time_ms <= \(cutoff) AND (user_id IS NULL OR lower(user_id) = \(userID))
                    """, logger: logger).decode(Int64.self) { hours.insert(hour) }
                var sessions: [String] = []
                for try await session in try await connection.query("""
                    SELECT DISTINCT session_id FROM events
                    WHERE install_id = \(install) AND received_time_ms <= \(cutoff) AND (user_id IS NULL OR lower(user_id) = \(userID))
                    """, logger: logger).decode(String.self) { sessions.append(session) }
                var renamed: [(old: String, new: String)] = []
                for session in sessions {
                    let newSession = Deidentification.freshID()
                    for try await count in try await connection.query("""
                        WITH changed AS (UPDATE events SET user_id = NULL, install_id = \(newInstall), session_id = \(newSession)
                                         WHERE install_id = \(install) AND session_id = \(session) AND received_time_ms <= \(cutoff)
                                           AND (user_id IS NULL OR lower(user_id) = \(userID)) RETURNING 1)
                        SELECT COUNT(*)::BIGINT FROM changed
                        """, logger: logger).decode(Int64.self) { result.events += Int(count) }
                    renamed.append((session, newSession))
                }
                // After every session moved: a reference may sit in a later session's row.
                for (old, new) in renamed {
                    for property in Deidentification.sessionReferenceProperties {
                        var bindings = PostgresBindings()
                        bindings.append(new)
                        bindings.append(newInstall)
                        bindings.append(old)
                        bindings.append(property)
                        _ = try await connection.query(PostgresQuery(unsafeSQL: """
                            UPDATE events SET properties = jsonb_set(properties, ARRAY[$4::text], to_jsonb($1::text))
                            WHERE install_id = $2 AND properties ->> $4::text = $3
                            """, binds: bindings), logger: logger)
                    }
                }
                // The install's first-seen time stays with the copy holding its first app_open.
                if !sessions.isEmpty { try await Self.firstSeenAfterDeidentification(connection, logger: logger, install: install, past: newInstall, cutoffMs: cutoff) }
                result.sessions += sessions.count
                result.installs += 1
            }
            for try await hour in try await connection.query(
                "SELECT DISTINCT received_time_ms / 3600000 FROM events WHERE lower(user_id) = \(userID)", logger: logger).decode(Int64.self) { hours.insert(hour) }
            for try await count in try await connection.query(
                "WITH changed AS (UPDATE events SET user_id = NULL WHERE lower(user_id) = \(userID) RETURNING 1) SELECT COUNT(*)::BIGINT FROM changed",
                logger: logger).decode(Int64.self) { result.events += Int(count) }
            result.hours = hours.sorted()
            let encoded = DeletionRequest.encodeHours(result.hours)
            _ = try await connection.query("""
                UPDATE deletion_requests SET user_id = NULL, store_step = 'done', lake_hours = \(encoded), events_deidentified = \(Int64(result.events)),
                    installs_deidentified = \(Int64(result.installs)), sessions_deidentified = \(Int64(result.sessions)), store_done_ms = \(nowMs), last_error = NULL
                WHERE request_id = \(claim.request.id)
                """, logger: logger)
            let detail = "request \(claim.request.id): \(result.installs) installs, \(result.sessions) sessions de-identified"
            _ = try await connection.query(
                "INSERT INTO privacy_audit(performed_time_ms, action, subject_hash, rows_affected, detail) VALUES (\(nowMs), 'forget_user', \(claim.request.subjectHash), \(Int64(result.events)), \(detail))",
                logger: logger)
            return result
        }
    }

    /// `VACUUM FULL events, deletion_requests`: rewrites both tables into new files, so the old row
    /// versions that still held the user id (and the ledger's id while pending) leave the data
    /// directory. Plain `VACUUM` only marks their space free — the bytes stay in the pages, as the
    /// PostgreSQL test of issue 14 showed — so the full rewrite is the documented way. It locks the
    /// tables while it runs (writes wait; clients retry on 503), which is why the worker batches
    /// it: one rewrite for every request whose store step ran by `nowMs`, at most once per
    /// `--deletion-vacuum-delay`. Only the tables' owner may run it (PostgreSQL 15): when the
    /// server's role is not the owner this throws ``DeletionFailure/vacuumNotPermitted`` and the
    /// step waits for `handz-analytics deletions vacuum` run as the owner.
    public func reclaimOldVersions(nowMs: Int64) async throws -> Int {
        try await client.withConnection { connection in
            var mayVacuum = false
            for try await allowed in try await connection.query("""
                SELECT bool_and(pg_has_role(current_user, c.relowner, 'USAGE')) FROM pg_class c
                WHERE c.oid IN ('events'::regclass, 'deletion_requests'::regclass)
                """, logger: logger).decode(Bool?.self) { mayVacuum = allowed ?? false }
            guard mayVacuum else { throw DeletionFailure.vacuumNotPermitted }
            var pending = 0
            for try await count in try await connection.query(
                "SELECT COUNT(*)::BIGINT FROM deletion_requests WHERE old_versions_step = 'pending' AND store_step <> 'pending' AND store_done_ms <= \(nowMs)",
                logger: logger).decode(Int64.self) { pending = Int(count) }
            guard pending > 0 else { return 0 }
            // VACUUM FULL copies the row versions a snapshot still open in this database may see
            // (a long analyst query, autovacuum's ANALYZE of the just-changed table), and with them
            // the id. Wait for such snapshots, up to 5 s; past that the step waits for the next run.
            var waits = 0
            while try await Self.otherSnapshots(connection, logger: logger) > 0 {
                guard waits < 50 else { throw DeletionFailure.oldSnapshotOpen }
                try await Task.sleep(for: .milliseconds(100))
                waits += 1
            }
            _ = try await connection.query("VACUUM FULL events, deletion_requests", logger: logger)
            var finished = 0
            for try await count in try await connection.query("""
                WITH done AS (UPDATE deletion_requests SET old_versions_step = 'done'
                              WHERE old_versions_step = 'pending' AND store_step <> 'pending' AND store_done_ms <= \(nowMs) RETURNING 1)
                SELECT COUNT(*)::BIGINT FROM done
                """, logger: logger).decode(Int64.self) { finished = Int(count) }
            return finished
        }
    }

    /// Other sessions of this database that hold a snapshot (`backend_xmin`): any of them may see
    /// the row versions a deletion replaced.
    static func otherSnapshots(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        var count: Int64 = 0
        for try await open in try await connection.query("""
            SELECT COUNT(*)::BIGINT FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL
            """, logger: logger).decode(Int64.self) { count = open }
        return count
    }

    public func deletedSubjects(receivedSinceMs sinceMs: Int64) async throws -> (salt: [UInt8], hashes: Set<String>) {
        try await client.withConnection { connection in
            let salt = try await Self.salt(connection, logger: self.logger)
            var hashes = Set<String>()
            for try await hash in try await connection.query(
                "SELECT DISTINCT subject_hash FROM deletion_requests WHERE received_time_ms >= \(sinceMs)", logger: self.logger).decode(String.self) {
                hashes.insert(hash)
            }
            return (salt, hashes)
        }
    }

    public func renewDeletionLease(id: String, owner: String, untilMs: Int64) async throws -> Bool {
        var renewed = 0
        for try await count in try await client.query(
            "WITH renewed AS (UPDATE deletion_requests SET lease_until_ms = \(untilMs) WHERE request_id = \(id) AND lease_owner = \(owner) RETURNING 1) SELECT COUNT(*)::BIGINT FROM renewed",
            logger: logger).decode(Int64.self) { renewed = Int(count) }
        return renewed == 1
    }

    public func finishLakeStep(id: String, partitions: Int) async throws {
        _ = try await client.query(
            "UPDATE deletion_requests SET lake_step = 'done', partitions_rewritten = partitions_rewritten + \(Int64(partitions)), last_error = NULL WHERE request_id = \(id)",
            logger: logger)
    }

    public func settleDeletion(id: String, failure: DeletionFailure?, nowMs: Int64) async throws -> DeletionRequest? {
        try await client.withConnection { connection in
            _ = try await connection.query("""
                UPDATE deletion_requests SET lease_owner = NULL, lease_until_ms = \(failure == nil ? nil : nowMs + DeletionRequest.retryDelayMs),
                    last_error = COALESCE(\(failure?.rawValue), last_error),
                    state = CASE WHEN store_step <> 'pending' AND old_versions_step <> 'pending' AND lake_step <> 'pending' THEN 'completed' ELSE state END,
                    completed_time_ms = CASE WHEN store_step <> 'pending' AND old_versions_step <> 'pending' AND lake_step <> 'pending'
                                             THEN COALESCE(completed_time_ms, \(nowMs)) END
                WHERE request_id = \(id)
                """, logger: self.logger)
            return try await Self.requests(connection, logger: self.logger, where: "request_id = $1", id).first
        }
    }

    public func lifecycleStatus(includeOldestEvent: Bool) async throws -> LifecycleStatus {
        var status = LifecycleStatus()
        if includeOldestEvent {
            for try await oldest in try await client.query("SELECT MIN(received_time_ms) FROM events", logger: logger).decode(Int64?.self) {
                status.oldestEventMs = oldest
            }
        }
        for try await (count, oldest) in try await client.query(
            "SELECT COUNT(*)::BIGINT, MIN(received_time_ms) FROM deletion_requests WHERE state = 'pending'", logger: logger).decode((Int64, Int64?).self) {
            status.pendingDeletions = Int(count)
            status.oldestPendingDeletionMs = oldest
        }
        return status
    }

    static func requests(_ connection: PostgresConnection, logger: Logger, where condition: String, _ argument: String) async throws -> [DeletionRequest] {
        var bindings = PostgresBindings()
        bindings.append(argument)
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT \(DeletionRequest.selectList) FROM deletion_requests WHERE \(condition)", binds: bindings), logger: logger)
        var found: [DeletionRequest] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            found.append(DeletionRequest.read(text: { (try? cells[$0].decode(String?.self)) ?? nil }, integer: { index in
                if let value = try? cells[index].decode(Int64?.self) { return value }
                return ((try? cells[index].decode(Int32?.self)) ?? nil).map(Int64.init)
            }))
        }
        return found
    }
}

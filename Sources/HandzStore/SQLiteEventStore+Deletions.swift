import Foundation
import HandzSQLite

/// The deletion ledger and retention on the embedded store (issue 14). Each step is one
/// transaction, so a crash leaves a step either done or not started, and the worker redoes it.
extension SQLiteEventStore {
    /// Records a deletion request for `userID` (already validated as a UUID), or returns the one
    /// that covers it: a pending request for the same user, or a completed one when no stored
    /// event carries the id any more (a repeated request is a no-op). `created` says which.
    /// `storedElsewhere` says whether events outside the `events` table may still carry the id (the
    /// segment engine's chunks and segments, issue 34): then a completed request does not cover it.
    public func requestDeletionNow(userID: String, nowMs: Int64, storedElsewhere: Bool = false) throws -> (request: DeletionRequest, created: Bool) {
        let userID = userID.lowercased()
        return try withConnection { database in
            try database.transaction {
                let hash = try AuditHash.hash(userID, database: database)
                let existing = try Self.requests(database, where: "subject_hash = ?1 ORDER BY (state = 'pending') DESC, received_time_ms DESC LIMIT 1", [.text(hash)])
                if let request = existing.first {
                    if request.state == .pending { return (request, false) }
                    let remaining = try database.scalar("SELECT EXISTS (SELECT 1 FROM events WHERE lower(user_id) = ?1)", [.text(userID)]) ?? 0
                    if remaining == 0 && !storedElsewhere { return (request, false) }
                }
                let lake = try database.scalar("SELECT COUNT(*) FROM store_meta WHERE key = 'lake_configured'") ?? 0
                let request = DeletionRequest(id: Deidentification.freshID(), subjectHash: hash, receivedTimeMs: nowMs,
                                              oldVersionsStep: .pending, lakeStep: lake > 0 ? .pending : .notApplicable)
                try database.prepare("""
                    INSERT INTO deletion_requests(request_id, subject_hash, user_id, received_time_ms, state, store_step, old_versions_step, lake_step)
                    VALUES (?1, ?2, ?3, ?4, 'pending', 'pending', 'pending', ?5)
                    """).run([.text(request.id), .text(hash), .text(userID), .integer(nowMs), .text(request.lakeStep.rawValue)])
                return (request, true)
            }
        }
    }

    /// One request by id, or nil.
    public func deletionRequestNow(id: String) throws -> DeletionRequest? {
        try withConnection { try Self.requests($0, where: "request_id = ?1", [.text(id.lowercased())]).first }
    }

    /// The newest requests first.
    public func deletionRequestsNow(limit: Int) throws -> [DeletionRequest] {
        try withConnection { try Self.requests($0, where: "1 = 1 ORDER BY received_time_ms DESC, request_id LIMIT ?1", [.integer(Int64(limit))]) }
    }

    /// Marks that a lake is written from this store, so new requests include the lake step.
    public func registerLakeNow() throws {
        try withConnection { try $0.execute("INSERT OR IGNORE INTO store_meta(key, value) VALUES ('lake_configured', '1')") }
    }

    /// Takes the oldest request this worker can advance, under a lease until `nowMs + leaseMs`.
    public func claimDeletionNow(owner: String, canRewriteLake: Bool, oldVersionsDueMs: Int64, storeDueMs: Int64, nowMs: Int64, leaseMs: Int64) throws -> DeletionClaim? {
        try withConnection { database in
            try database.transaction {
                let select = try database.prepare("""
                    SELECT request_id, user_id FROM deletion_requests
                    WHERE \(DeletionLedgerSchema.claimableCondition.replacingOccurrences(of: "$", with: "?"))
                    ORDER BY received_time_ms LIMIT 1
                    """)
                let found: [(String, String?)] = try select.query([.integer(nowMs), .integer(canRewriteLake ? 1 : 0), .integer(oldVersionsDueMs), .integer(storeDueMs)]) {
                    ($0.text(0) ?? "", $0.text(1))
                }
                guard let (id, userID) = found.first else { return nil }
                try database.prepare("UPDATE deletion_requests SET lease_owner = ?1, lease_until_ms = ?2, attempts = attempts + 1 WHERE request_id = ?3")
                    .run([.text(owner), .integer(nowMs + leaseMs), .text(id)])
                guard let request = try Self.requests(database, where: "request_id = ?1", [.text(id)]).first else { return nil }
                return DeletionClaim(request: request, userID: userID, owner: owner)
            }
        }
    }

    /// The store step (``Deidentification``): in one transaction, de-identifies the user's past,
    /// drops the user id from the ledger, records the lake hours and audits a hash and counts.
    /// Then truncates the write-ahead log, so the old pages (zeroed by `secure_delete`) leave the disk.
    public func deidentifyNow(_ claim: DeletionClaim, nowMs: Int64) throws -> DeidentifyResult {
        guard let userID = claim.userID else { return DeidentifyResult() }
        let cutoff = claim.request.receivedTimeMs
        let result = try withConnection { database in
            try database.transaction {
                var result = DeidentifyResult()
                var hours = Set<Int64>()
                let changesBefore = try LogChanges.current(database)
                let installs = try database.prepare("SELECT DISTINCT install_id FROM events WHERE lower(user_id) = ?1")
                    .query([.text(userID)]) { $0.text(0) ?? "" }
                // Every log row this step may change, journaled for the column copy (LogRewrites):
                // the installs' rows (by the install index) and the user's.
                var touched = Set(try database.prepare("SELECT rowid FROM events WHERE lower(user_id) = ?1").query([.text(userID)]) { $0.int64(0) })
                let installRows = try database.prepare("SELECT rowid FROM events WHERE install_id = ?1")
                for install in installs { touched.formUnion(try installRows.query([.text(install)]) { $0.int64(0) }) }
                let past = "install_id = ?1 AND received_time_ms <= ?2 AND (user_id IS NULL OR lower(user_id) = ?3)"
                let hourQuery = try database.prepare("SELECT DISTINCT received_time_ms / 3600000 FROM events WHERE \(past)")
                let sessionQuery = try database.prepare("SELECT DISTINCT session_id FROM events WHERE \(past)")
                let update = try database.prepare("""
                    UPDATE events SET user_id = NULL, install_id = ?4, session_id = ?5
                    WHERE \(past) AND session_id = ?6
                    """)
                let references = try Deidentification.sessionReferenceProperties.map { property in
                    (property, try database.prepare("""
                        UPDATE events SET properties = json_set(properties, '$.\(property)', ?1)
                        WHERE install_id = ?2 AND json_extract(properties, '$.\(property)') = ?3
                        """))
                }
                for install in installs {
                    let newInstall = Deidentification.freshID()
                    let past: [SQLiteValue] = [.text(install), .integer(cutoff), .text(userID)]
                    for hour in try hourQuery.query(past, { $0.int64(0) }) { hours.insert(hour) }
                    let sessions = try sessionQuery.query(past) { $0.text(0) ?? "" }
                    var renamed: [(old: String, new: String)] = []
                    for session in sessions {
                        let newSession = Deidentification.freshID()
                        try update.run(past + [.text(newInstall), .text(newSession), .text(session)])
                        result.events += database.changes
                        renamed.append((session, newSession))
                    }
                    // After every session moved: a reference may sit in a later session's row.
                    for (old, new) in renamed {
                        for (_, statement) in references { try statement.run([.text(new), .text(newInstall), .text(old)]) }
                    }
                    // The install's first-seen time stays with the copy holding its first app_open.
                    if !sessions.isEmpty { try InstallFirstSeen.deidentified(database, install: install, past: newInstall, cutoffMs: cutoff) }
                    result.sessions += sessions.count
                    result.installs += 1
                }
                // Rows received after the request that still carry the id (sent late from an
                // offline queue) lose it too; they are the device's present, so keep their ids.
                // Another account's signed-in rows on the same install keep theirs (see Deidentification).
                for hour in try database.prepare("SELECT DISTINCT received_time_ms / 3600000 FROM events WHERE lower(user_id) = ?1")
                    .query([.text(userID)], { $0.int64(0) }) { hours.insert(hour) }
                try database.prepare("UPDATE events SET user_id = NULL WHERE lower(user_id) = ?1").run([.text(userID)])
                result.events += database.changes
                // The column copy rewrites the chunks holding these rows (LogRewrites).
                try LogRewrites.record(database, before: changesBefore, nowMs: nowMs, rowIDs: touched.sorted())
                result.hours = hours.sorted()
                try Self.finishStoreStep(database, claim, result, nowMs: nowMs)
                return result
            }
        }
        try checkpointNow()
        return result
    }

    /// The store step's record, in the caller's transaction: the ledger forgets the user id and
    /// keeps the counts and the lake hours; the audit keeps the subject's hash and the counts.
    static func finishStoreStep(_ database: SQLiteDatabase, _ claim: DeletionClaim, _ result: DeidentifyResult, nowMs: Int64) throws {
        // Hours an earlier attempt noted (the segment engine notes them before it publishes) stay.
        var result = result
        result.hours = try Self.lakeHoursUnion(database, claim.request.id, result.hours)
        try database.prepare("""
            UPDATE deletion_requests SET user_id = NULL, store_step = 'done', lake_hours = ?1, events_deidentified = ?2,
                installs_deidentified = ?3, sessions_deidentified = ?4, store_done_ms = ?5, last_error = NULL
            WHERE request_id = ?6
            """).run([.text(DeletionRequest.encodeHours(result.hours)), .integer(Int64(result.events)), .integer(Int64(result.installs)),
                      .integer(Int64(result.sessions)), .integer(nowMs), .text(claim.request.id)])
        try database.prepare("INSERT INTO privacy_audit(performed_time_ms, action, subject_hash, rows_affected, detail) VALUES (?1, 'forget_user', ?2, ?3, ?4)")
            .run([.integer(nowMs), .text(claim.request.subjectHash), .integer(Int64(result.events)),
                  .text("request \(claim.request.id): \(result.installs) installs, \(result.sessions) sessions de-identified")])
    }

    /// The old-versions step on SQLite: `secure_delete` already zeroed the pages the store step
    /// freed; a truncating checkpoint empties the write-ahead log that still held them. Marks every
    /// request whose store step ran before `nowMs` done.
    /// `keepColumnStore`: the segment engine's column store is its events' only copy, not a copy
    /// of the log, and is never discarded (its store step rewrote it before the ledger moved on).
    public func reclaimOldVersionsNow(nowMs: Int64, keepColumnStore: Bool = false) throws -> Int {
        try withConnection { database in
            // The column copy has had its chance to rewrite its chunks (the worker's
            // `afterStoreStep`); one that has not still holds the old values, and goes.
            let changes = try LogChanges.current(database)
            if !keepColumnStore { ColumnStoreCopy.discardIfBehind(forDatabase: path, logChanges: changes) }
            // The copy now holds every change through `changes`, or is gone: the journal's entries
            // for them go too. A de-identification's entry lists the rows of the user's installs,
            // old ids and new alike, which would link them again.
            try LogRewrites.forgetApplied(database, through: changes)
        }
        // Then the pages those deletions freed leave the write-ahead log.
        try checkpointNow()
        return try withConnection { database in
            try database.prepare("""
                UPDATE deletion_requests SET old_versions_step = 'done'
                WHERE old_versions_step = 'pending' AND store_step <> 'pending' AND store_done_ms <= ?1
                """).run([.integer(nowMs)])
            return database.changes
        }
    }

    /// Folds the WAL into the file and truncates it. Tries a few times: a reader holding an old
    /// snapshot (the lake export, a stats call) makes a checkpoint stop short.
    func checkpointNow() throws {
        try withConnection { database in
            for attempt in 0..<50 {
                let busy = try database.scalar("PRAGMA wal_checkpoint(TRUNCATE)") ?? 0
                if busy == 0 { return }
                if attempt < 49 { usleep(20_000) }
            }
            throw StoreError.unavailable("checkpoint stayed busy")
        }
    }

    /// The audit salt (created on first use) and the subject hashes of requests received since `sinceMs`.
    public func deletedSubjectsNow(receivedSinceMs sinceMs: Int64) throws -> (salt: [UInt8], hashes: Set<String>) {
        try withConnection { database in
            try database.transaction {
                let salt = try AuditHash.salt(database)
                let hashes = try database.prepare("SELECT DISTINCT subject_hash FROM deletion_requests WHERE received_time_ms >= ?1")
                    .query([.integer(sinceMs)]) { $0.text(0) ?? "" }
                return (salt, Set(hashes))
            }
        }
    }

    /// Extends `owner`'s lease on a request; false when another worker holds it now.
    public func renewDeletionLeaseNow(id: String, owner: String, untilMs: Int64) throws -> Bool {
        try withConnection { database in
            try database.prepare("UPDATE deletion_requests SET lease_until_ms = ?1 WHERE request_id = ?2 AND lease_owner = ?3")
                .run([.integer(untilMs), .text(id), .text(owner)])
            return database.changes == 1
        }
    }

    /// The lake step is done: `partitions` were rewritten.
    public func finishLakeStepNow(id: String, partitions: Int) throws {
        try withConnection { database in
            try database.prepare("UPDATE deletion_requests SET lake_step = 'done', partitions_rewritten = partitions_rewritten + ?1, last_error = NULL WHERE request_id = ?2")
                .run([.integer(Int64(partitions)), .text(id)])
        }
    }

    /// Completes the request if every step is finished and releases the lease — after a failure, only
    /// once ``DeletionRequest/retryDelayMs`` has passed, so the next try waits. Returns the request.
    public func settleDeletionNow(id: String, failure: DeletionFailure?, nowMs: Int64) throws -> DeletionRequest? {
        try withConnection { database in
            try database.transaction {
                try database.prepare("""
                    UPDATE deletion_requests SET lease_owner = NULL, lease_until_ms = CASE WHEN ?1 IS NULL THEN NULL ELSE ?2 + \(DeletionRequest.retryDelayMs) END,
                        last_error = COALESCE(?1, last_error),
                        state = CASE WHEN store_step <> 'pending' AND old_versions_step <> 'pending' AND lake_step <> 'pending' THEN 'completed' ELSE state END,
                        completed_time_ms = CASE WHEN store_step <> 'pending' AND old_versions_step <> 'pending' AND lake_step <> 'pending'
                                                 THEN COALESCE(completed_time_ms, ?2) END
                    WHERE request_id = ?3
                    """).run([failure.map { .text($0.rawValue) } ?? .null, .integer(nowMs), .text(id)])
                return try Self.requests(database, where: "request_id = ?1", [.text(id)]).first
            }
        }
    }

    /// Oldest stored event and pending deletions (`/health`, `/metrics`).
    public func lifecycleStatusNow(includeOldestEvent: Bool = true) throws -> LifecycleStatus {
        try withConnection { database in
            var status = LifecycleStatus()
            if includeOldestEvent {
                let oldest = try database.prepare("SELECT MIN(received_time_ms) FROM events")
                if try oldest.step(), !oldest.isNull(0) { status.oldestEventMs = oldest.int64(0) }
            }
            let pending = try database.prepare("SELECT COUNT(*), MIN(received_time_ms) FROM deletion_requests WHERE state = 'pending'")
            if try pending.step() {
                status.pendingDeletions = Int(pending.int64(0))
                if !pending.isNull(1) { status.oldestPendingDeletionMs = pending.int64(1) }
            }
            return status
        }
    }

    static func requests(_ database: SQLiteDatabase, where condition: String, _ arguments: [SQLiteValue]) throws -> [DeletionRequest] {
        try database.prepare("SELECT \(DeletionRequest.selectList) FROM deletion_requests WHERE \(condition)").query(arguments) { row in
            DeletionRequest.read(text: { row.text(Int32($0)) }, integer: { row.isNull(Int32($0)) ? nil : row.int64(Int32($0)) })
        }
    }
}

import Foundation
import HandzSigning
import HandzSQLite

/// What adopting a replaced store's deletion ledger did (``SQLiteEventStore/adoptDeletionLedgerNow(ofReplaced:userIDs:)``).
public struct LedgerAdoption: Sendable, Equatable {
    /// Requests the replaced store had and the backup did not (recorded after the backup).
    public var copiedRequests = 0
    /// Privacy audit rows newer than the backup's newest, copied across.
    public var copiedAuditRows = 0
    /// Requests whose user the restored events still hold: set pending again, with the user id
    /// found, for the deletion worker to carry out once more.
    public var reappliedRequests = 0

    public init() {}
}

extension SQLiteEventStore {
    /// A restore must not bring back anyone who was forgotten after the backup was taken (CH34
    /// §8: a deletion reaches every copy, backups included once they are restored). This store
    /// is the restored backup; `replaced` is the store it is about to replace. Its deletion ledger
    /// and newer audit rows are copied in, and every completed request whose user the restored
    /// events still carry is set pending again, for the deletion worker to carry out once more.
    ///
    /// The ledger keeps no user id, only `subject_hash` = HMAC-SHA256(audit salt, user_id); the
    /// backup came from the same store, so it has the same salt, and each distinct `user_id` of
    /// the restored events is hashed once to find them. A replaced store with another salt is
    /// another store (`different_store`); a backup taken before the store's first deletion has no
    /// salt yet and takes the replaced store's.
    ///
    /// `userIDs`: the restored events' distinct user ids in lower case, when they are not in this
    /// file's `events` table (a segment store's are in its chunks: HandzColumnStore's
    /// `SegmentEventStore.storedUserIDsNow()`); nil reads them from `events`.
    public func adoptDeletionLedgerNow(ofReplaced replaced: String, userIDs: Set<String>? = nil) throws -> LedgerAdoption {
        try withConnection { database in
            try database.prepare("ATTACH DATABASE ?1 AS replaced").run([.text(replaced)])
            defer { try? database.execute("DETACH DATABASE replaced") }
            return try database.transaction { try Self.adoptLedger(database, userIDs: userIDs) }
        }
    }

    private static func adoptLedger(_ database: SQLiteDatabase, userIDs given: Set<String>?) throws -> LedgerAdoption {
        var adoption = LedgerAdoption()
        let saltQuery = "SELECT value FROM %@.store_meta WHERE key = 'audit_salt'"
        func salt(_ schema: String) throws -> String? {
            try database.prepare(saltQuery.replacingOccurrences(of: "%@", with: schema)).query { $0.text(0) }.first ?? nil
        }
        // A store that never had a deletion has no salt, and nothing to adopt.
        guard let replacedSalt = try salt("replaced") else { return adoption }
        if let restoredSalt = try salt("main") {
            guard restoredSalt == replacedSalt else {
                throw StoreBackupError(.differentStore, "the store being replaced is not the one this backup was taken from (another audit salt); restore to a new path instead")
            }
        } else {
            try database.prepare("INSERT INTO main.store_meta(key, value) VALUES ('audit_salt', ?1)").run([.text(replacedSalt)])
        }

        // The ledger rows recorded after the backup, column for column (both stores are at this
        // binary's schema: the replaced one was opened by it, the restored one just migrated).
        let columns = try database.prepare("SELECT name FROM pragma_table_info('deletion_requests', 'main')").query { $0.text(0) ?? "" }.joined(separator: ", ")
        try database.execute("""
            INSERT INTO main.deletion_requests(\(columns)) SELECT \(columns) FROM replaced.deletion_requests
            WHERE request_id NOT IN (SELECT request_id FROM main.deletion_requests)
            """)
        adoption.copiedRequests = database.changes
        try database.execute("""
            INSERT INTO main.privacy_audit(performed_time_ms, action, subject_hash, rows_affected, detail)
            SELECT performed_time_ms, action, subject_hash, rows_affected, detail FROM replaced.privacy_audit
            WHERE performed_time_ms > (SELECT COALESCE(MAX(performed_time_ms), -1) FROM main.privacy_audit) ORDER BY id
            """)
        adoption.copiedAuditRows = database.changes

        // Completed store steps whose user is back in the restored events: the newest request per subject.
        var requestBySubject: [String: (id: String, receivedMs: Int64)] = [:]
        for (id, subject, received) in try database.prepare("SELECT request_id, subject_hash, received_time_ms FROM main.deletion_requests WHERE store_step = 'done'")
            .query([], { ($0.text(0) ?? "", $0.text(1) ?? "", $0.int64(2)) }) where received >= requestBySubject[subject]?.receivedMs ?? Int64.min {
            requestBySubject[subject] = (id, received)
        }
        guard !requestBySubject.isEmpty, let key = Hex.decode(replacedSalt) else { return adoption }
        let reopen = try database.prepare("""
            UPDATE main.deletion_requests SET user_id = ?1, state = 'pending', store_step = 'pending', old_versions_step = 'pending',
                lake_step = CASE lake_step WHEN 'not_applicable' THEN 'not_applicable' ELSE 'pending' END,
                store_done_ms = NULL, completed_time_ms = NULL, lease_owner = NULL, lease_until_ms = NULL, last_error = NULL
            WHERE request_id = ?2
            """)
        let userIDs = try given.map { Array($0) }
            ?? database.prepare("SELECT DISTINCT lower(user_id) FROM main.events WHERE user_id IS NOT NULL").query([], { $0.text(0) ?? "" })
        for userID in userIDs {
            guard let request = requestBySubject[Hex.encode(HMACSHA256.code(key: key, data: Array(userID.utf8)))] else { continue }
            try reopen.run([.text(userID), .text(request.id)])
            adoption.reappliedRequests += 1
        }
        return adoption
    }
}

/// The `deletion_requests` table, the same columns on both stores (issue 14 §1). One row per
/// request; see ``DeletionRequest`` for what each column means.
public enum DeletionLedgerSchema {
    /// The columns after `request_id`, in one place for both engines (`BIGINT` reads as SQLite's INTEGER).
    static let columns = """
        subject_hash          TEXT    NOT NULL,  -- HMAC-SHA256(audit salt, user_id), hex
        user_id               TEXT,              -- only until the store step has run, then NULL
        received_time_ms      BIGINT  NOT NULL,  -- events received up to this are de-identified
        state                 TEXT    NOT NULL,  -- pending | completed
        store_step            TEXT    NOT NULL,  -- pending | done | not_applicable
        old_versions_step     TEXT    NOT NULL,
        lake_step             TEXT    NOT NULL,
        lake_hours            TEXT    NOT NULL DEFAULT '',  -- receive hours to rewrite in the lake
        events_deidentified   BIGINT  NOT NULL DEFAULT 0,
        installs_deidentified BIGINT  NOT NULL DEFAULT 0,
        sessions_deidentified BIGINT  NOT NULL DEFAULT 0,
        partitions_rewritten  BIGINT  NOT NULL DEFAULT 0,
        attempts              INTEGER NOT NULL DEFAULT 0,
        last_error            TEXT,              -- a DeletionFailure code, never a value
        lease_owner           TEXT,              -- the worker holding it (one at a time)
        lease_until_ms        BIGINT,
        store_done_ms         BIGINT,
        completed_time_ms     BIGINT
        """

    static let indexes = [
        "CREATE INDEX deletion_requests_by_subject ON deletion_requests(subject_hash)",
        "CREATE INDEX deletion_requests_by_state ON deletion_requests(state, received_time_ms)",
    ]

    static var sqliteTable: String {
        "CREATE TABLE deletion_requests (\n    request_id TEXT PRIMARY KEY,\n\(columns)\n);\n" + indexes.map { $0 + ";\n" }.joined()
    }

    /// PostgreSQL statements (the same table; `--` comments are valid there too).
    public static var postgresStatements: [String] {
        ["CREATE TABLE deletion_requests (\n    request_id TEXT PRIMARY KEY,\n\(columns)\n)"] + indexes
    }

    /// Where a worker may take a request: pending, not leased by another worker, and with a step
    /// this worker can do now. Binds: 1 now, 2 may rewrite the lake (0/1), 3 old versions due
    /// before, 4 store step due for requests received before.
    public static let claimableCondition = """
        state = 'pending' AND (lease_until_ms IS NULL OR lease_until_ms < $1)
        AND ((store_step = 'pending' AND received_time_ms <= $4)
             OR (lake_step = 'pending' AND $2 = 1 AND store_step <> 'pending')
             OR (old_versions_step = 'pending' AND store_step <> 'pending' AND store_done_ms <= $3))
        """
}

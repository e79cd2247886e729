import HandzStore

/// The PostgreSQL store's schema: the same tables, columns and meaning as the embedded store
/// (`HandzStore.StoreSchema`), in PostgreSQL types, applied by numbered migrations under an
/// advisory lock so several nodes starting at once migrate exactly once.
///
/// `event_id` is the canonical lowercase UUID text (its order equals the 16-byte order SQLite
/// keeps), text columns use the "C" collation so every engine sorts alike, `properties` is JSONB.
enum PostgresSchema {
    struct Migration {
        let version: Int
        let description: String
        let statements: [String]
    }

    static let lockKey: Int64 = 0x48414E445A  // "HANDZ"

    static let migrations: [Migration] = [
        Migration(version: 1, description: "events, quarantine, batch receipts, privacy audit", statements: [
            """
            CREATE TABLE events (
                event_id         TEXT COLLATE "C" NOT NULL,
                event_name       TEXT COLLATE "C" NOT NULL,
                event_time_ms    BIGINT NOT NULL,
                received_time_ms BIGINT NOT NULL,
                install_id       TEXT COLLATE "C" NOT NULL,
                session_id       TEXT COLLATE "C" NOT NULL,
                user_id          TEXT COLLATE "C",
                user_state       TEXT COLLATE "C" NOT NULL,
                app_version      TEXT COLLATE "C" NOT NULL,
                build_number     TEXT COLLATE "C" NOT NULL,
                platform         TEXT COLLATE "C" NOT NULL,
                os_version       TEXT COLLATE "C" NOT NULL,
                device_model     TEXT COLLATE "C" NOT NULL,
                locale           TEXT COLLATE "C" NOT NULL,
                timezone         TEXT COLLATE "C" NOT NULL,
                network_state    TEXT COLLATE "C" NOT NULL,
                key_id           TEXT COLLATE "C" NOT NULL,
                catalog_version  TEXT COLLATE "C" NOT NULL,
                properties       JSONB NOT NULL
            )
            """,
            "CREATE UNIQUE INDEX events_by_event_id ON events(event_id)",
            "CREATE INDEX events_by_install_time ON events(install_id, event_time_ms)",
            "CREATE INDEX events_by_name_time ON events(event_name, event_time_ms)",
            """
            CREATE TABLE rejected_events (
                id BIGSERIAL PRIMARY KEY, received_time_ms BIGINT NOT NULL, key_id TEXT NOT NULL, event_name TEXT,
                error_codes TEXT NOT NULL, errors TEXT NOT NULL, byte_size INTEGER NOT NULL
            )
            """,
            "CREATE INDEX rejected_by_time ON rejected_events(received_time_ms)",
            """
            CREATE TABLE batches (
                id BIGSERIAL PRIMARY KEY, received_time_ms BIGINT NOT NULL, key_id TEXT NOT NULL, sent_at_ms BIGINT,
                events INTEGER NOT NULL, accepted INTEGER NOT NULL, duplicates INTEGER NOT NULL, rejected INTEGER NOT NULL,
                body_bytes INTEGER NOT NULL
            )
            """,
            "CREATE INDEX batches_by_time ON batches(received_time_ms)",
            """
            CREATE TABLE privacy_audit (
                id BIGSERIAL PRIMARY KEY, performed_time_ms BIGINT NOT NULL, action TEXT NOT NULL, subject_hash TEXT,
                rows_affected BIGINT NOT NULL, detail TEXT
            )
            """,
            "CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        ]),
        // The embedded store's migration 2: every UUID column in canonical lower case.
        Migration(version: 2, description: "UUID columns in canonical lower case", statements: [
            """
            UPDATE events SET install_id = lower(install_id), session_id = lower(session_id), user_id = lower(user_id)
            WHERE install_id ~ '[A-F]' OR session_id ~ '[A-F]' OR user_id ~ '[A-F]'
            """,
        ]),
        // The embedded store's migration 3: the deletion ledger (issue 14 §1).
        // `user_id` gets no planner statistics: ANALYZE would copy sample values into
        // pg_statistic, a catalog a deletion cannot rewrite (issue 14 §3).
        Migration(version: 3, description: "deletion ledger", statements: DeletionLedgerSchema.postgresStatements + [
            "ALTER TABLE events ALTER COLUMN user_id SET STATISTICS 0",
            "ALTER TABLE deletion_requests ALTER COLUMN user_id SET STATISTICS 0",
        ]),
        // The embedded store's migration 6 (issue 32 §6): each install's first-seen time, kept
        // through retention and de-identification (HandzStore.InstallFirstSeen), filled from the
        // stored app_opens as they stand. Idempotent.
        Migration(version: 4, description: "install first-seen times", statements: [
            """
            CREATE TABLE IF NOT EXISTS install_first_seen (
                install_id        TEXT COLLATE "C" PRIMARY KEY,
                first_app_open_ms BIGINT NOT NULL,
                last_received_ms  BIGINT NOT NULL
            )
            """,
            """
            INSERT INTO install_first_seen (install_id, first_app_open_ms, last_received_ms)
            SELECT install_id, MIN(event_time_ms), MAX(received_time_ms) FROM events WHERE event_name = 'app_open' GROUP BY install_id
            ON CONFLICT (install_id) DO NOTHING
            """,
        ]),
        // Issue 36 §1: what an analysis node follows. Each row carries the id of the transaction
        // that stored it (`pg_current_xact_id()`, 64 bits, never wraps); every transaction below
        // a snapshot's xmin has ended, so the rows below it are final and a follower reads each
        // exactly once by that order (`PostgresEventStore+Follow`) — not by event time, which
        // arrives out of order. Rows stored before this migration carry its own transaction's id.
        // Not one of `EventColumn`: the store's bookkeeping, which no export or copy carries.
        // Idempotent, like migration 4 (a retry after a crash between it and its record).
        Migration(version: 5, description: "commit order for analysis nodes", statements: [
            "ALTER TABLE events ADD COLUMN IF NOT EXISTS commit_xid xid8 NOT NULL DEFAULT pg_current_xact_id()",
            "CREATE INDEX IF NOT EXISTS events_by_commit ON events(commit_xid, event_id)",
        ]),
    ]
}

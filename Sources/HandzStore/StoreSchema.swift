import HandzSQLite

/// The store's schema, as numbered migrations applied in order and recorded in
/// `schema_migrations`. Never edit a shipped migration; add the next one.
///
/// Documented for analysts in the HandzStore docs ("Stored events"). Times are epoch milliseconds (UTC);
/// `events_readable` shows them as ISO-8601 text.
public enum StoreSchema {
    public struct Migration: Sendable {
        public let version: Int
        public let description: String
        public let sql: String
    }

    public static let migrations: [Migration] = [
        Migration(version: 1, description: "events, quarantine, batch receipts, privacy audit", sql: """
        CREATE TABLE events (
            event_id         BLOB    NOT NULL,  -- the client's UUID as 16 bytes; unique: the dedupe key
            event_name       TEXT    NOT NULL,
            event_time_ms    INTEGER NOT NULL,  -- event_time_utc (device clock), epoch ms
            received_time_ms INTEGER NOT NULL,  -- when the endpoint received it (CH33 §9), epoch ms
            install_id       TEXT    NOT NULL,
            session_id       TEXT    NOT NULL,
            user_id          TEXT,              -- NULL when signed out, or after forget-user
            user_state       TEXT    NOT NULL,
            app_version      TEXT    NOT NULL,
            build_number     TEXT    NOT NULL,
            platform         TEXT    NOT NULL,
            os_version       TEXT    NOT NULL,
            device_model     TEXT    NOT NULL,
            locale           TEXT    NOT NULL,
            timezone         TEXT    NOT NULL,
            network_state    TEXT    NOT NULL,
            key_id           TEXT    NOT NULL,  -- the ingestion key that signed the request
            catalog_version  TEXT    NOT NULL,  -- the catalog the event was validated against
            properties       TEXT    NOT NULL   -- the event's properties object, JSON
        );
        CREATE UNIQUE INDEX events_by_event_id ON events(event_id);
        CREATE INDEX events_by_install_time ON events(install_id, event_time_ms);
        CREATE INDEX events_by_name_time ON events(event_name, event_time_ms);

        -- Rejected events: where and why, never what. No payload, no value.
        CREATE TABLE rejected_events (
            id               INTEGER PRIMARY KEY,
            received_time_ms INTEGER NOT NULL,
            key_id           TEXT    NOT NULL,
            event_name       TEXT,              -- only when it is a catalogued name
            error_codes      TEXT    NOT NULL,  -- distinct codes, comma-separated
            errors           TEXT    NOT NULL,  -- JSON [{"code","path"}], unreviewed keys redacted as *
            byte_size        INTEGER NOT NULL
        );
        CREATE INDEX rejected_by_time ON rejected_events(received_time_ms);

        -- One receipt per accepted request: the counts the client was told.
        CREATE TABLE batches (
            id               INTEGER PRIMARY KEY,
            received_time_ms INTEGER NOT NULL,
            key_id           TEXT    NOT NULL,
            sent_at_ms       INTEGER,
            events           INTEGER NOT NULL,
            accepted         INTEGER NOT NULL,
            duplicates       INTEGER NOT NULL,
            rejected         INTEGER NOT NULL,
            body_bytes       INTEGER NOT NULL
        );
        CREATE INDEX batches_by_time ON batches(received_time_ms);

        -- Privacy operations (CH34 §8.3): what was done, to a salted hash of whom.
        CREATE TABLE privacy_audit (
            id                INTEGER PRIMARY KEY,
            performed_time_ms INTEGER NOT NULL,
            action            TEXT    NOT NULL,  -- forget_user | purge
            subject_hash      TEXT,              -- HMAC-SHA256(salt, user_id), hex; NULL for purge
            rows_affected     INTEGER NOT NULL,
            detail            TEXT
        );
        CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        CREATE VIEW events_readable AS
        SELECT lower(substr(hex(event_id), 1, 8) || '-' || substr(hex(event_id), 9, 4) || '-' || substr(hex(event_id), 13, 4)
                     || '-' || substr(hex(event_id), 17, 4) || '-' || substr(hex(event_id), 21, 12)) AS event_id,
               event_name,
               strftime('%Y-%m-%dT%H:%M:%fZ', event_time_ms / 1000.0, 'unixepoch') AS event_time_utc,
               strftime('%Y-%m-%dT%H:%M:%fZ', received_time_ms / 1000.0, 'unixepoch') AS received_time_utc,
               install_id, session_id, user_id, user_state, app_version, build_number, platform, os_version,
               device_model, locale, timezone, network_state, key_id, catalog_version, properties
        FROM events;
        """),
        // Issue 21 §4: the validator accepts upper-case UUIDs; the store now keeps every id column
        // in the canonical lower case (ingest lower-cases them), so deletion matches one form.
        Migration(version: 2, description: "UUID columns in canonical lower case", sql: """
        UPDATE events SET install_id = lower(install_id), session_id = lower(session_id), user_id = lower(user_id)
        WHERE install_id GLOB '*[A-F]*' OR session_id GLOB '*[A-F]*' OR user_id GLOB '*[A-F]*';
        """),
        // Issue 14 §1: the deletion ledger. `user_id` is held only until the store step has run.
        Migration(version: 3, description: "deletion ledger", sql: DeletionLedgerSchema.sqliteTable),
        // Issue 15: the analytical layer beside the log; the log's name index goes (removed by 9).
        Migration(version: 4, description: "analytical layer", sql: RetiredMigrations.analyticalLayer),
        // Issue 15 §2: the layer's per-session rollup (removed by 9; see RetiredMigrations).
        Migration(version: 5, description: "session rollup", sql: RetiredMigrations.sessionRollup),
        // Issue 32 §6: each install's first-seen time, kept through retention and de-identification
        // (see InstallFirstSeen), filled from the log's app_opens as they stand.
        Migration(version: 6, description: "install first-seen times", sql: InstallFirstSeen.migrationSQL),
        // Issue 33: a counter of the log's updated and deleted rows, for the copies that follow
        // it by rowid (see LogChanges).
        Migration(version: 7, description: "log change counter", sql: LogChanges.migrationSQL),
        // Issue 33 §4: what each deletion or rewrite of the log touched, so the column copy
        // rewrites only those chunks (see LogRewrites).
        Migration(version: 8, description: "log rewrite journal", sql: LogRewrites.migrationSQL),
        // Issue 33 §5: one engine for the embedded store. The analytical layer of migrations 4
        // and 5 goes; the column store beside the file answers what it did (see RetiredMigrations).
        Migration(version: 9, description: "analytical layer removed", sql: RetiredMigrations.removeAnalyticalLayer),
    ]

    public static var currentVersion: Int { migrations.last!.version }

    /// Applies every migration newer than the database's version, each in its own transaction.
    public static func migrate(_ database: SQLiteDatabase, nowMs: Int64) throws {
        try database.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_time_ms INTEGER NOT NULL, description TEXT NOT NULL)")
        let applied = try database.scalar("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") ?? 0
        try StoreSchemaError.refuseNewer(found: Int(applied), supported: currentVersion)
        for migration in migrations where migration.version > applied {
            try database.transaction {
                try database.execute(migration.sql)
                try database.prepare("INSERT INTO schema_migrations(version, applied_time_ms, description) VALUES (?1, ?2, ?3)")
                    .run([.integer(Int64(migration.version)), .integer(nowMs), .text(migration.description)])
            }
        }
    }
}

/// A store written by a newer binary than this one: refused before anything is read or written,
/// so a rollback to an older binary cannot misread or damage what the newer one wrote. The way
/// back is the newer binary, or the backup taken before the upgrade (HandzStore documentation,
/// *Stored events*, "Upgrades and rollbacks").
public struct StoreSchemaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The store's schema version (the highest migration it records).
    public let found: Int
    /// The newest schema version this binary knows.
    public let supported: Int

    public init(found: Int, supported: Int) {
        (self.found, self.supported) = (found, supported)
    }

    /// Throws when `found` is newer than `supported`.
    public static func refuseNewer(found: Int, supported: Int) throws(StoreSchemaError) {
        if found > supported { throw StoreSchemaError(found: found, supported: supported) }
    }

    public var description: String {
        "newer_schema: the store is at schema version \(found), newer than this binary's \(supported) — it was upgraded by a "
            + "newer handz-analytics; run that version, or restore the backup taken before the upgrade (nothing was changed)"
    }
}

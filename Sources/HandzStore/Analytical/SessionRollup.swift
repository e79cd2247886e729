import HandzSQLite

/// The analytical layer's first rollup (issue 15 §2, "per session"): one row per (install,
/// session, UTC day) with an event, holding the group's last event by (event_time_ms, event_id).
/// About one row per session where the layer has one per event (100,000 installs × 30 days:
/// ~0.5 M rows for 7.3 M events), it is what crash-free sessions read (CH33 §5.2 Quality, §7.1):
/// each session's days, and each install's last session, the one holding its last event.
///
/// Kept equal to the layer in the same transactions (``AnalyticalLayer``):
/// - **a fold** upserts the new events' groups, keeping the later last event;
/// - **a change to stored events** (de-identification's refold, retention and `purge`) recomputes
///   every install it touches from the log's `(install_id, event_time_ms)` index, up to the
///   watermark: a last event cannot be un-maxed, so the affected installs are read again. Their
///   old rows, which hold the ids a de-identification replaces, are deleted (and zeroed on disk:
///   `secure_delete`).
public enum SessionRollup {
    /// Store migration 5: the table, filled from the layer as it stands.
    static let migrationSQL = """
    CREATE TABLE analytic_session_days (
        install       BLOB    NOT NULL,  -- as analytic_events.install
        session       BLOB    NOT NULL,  -- as analytic_events.session
        day           INTEGER NOT NULL,  -- UTC day: event_time_ms / 86,400,000
        last_time_ms  INTEGER NOT NULL,  -- the group's last event by (event_time_ms, event_id)
        last_event_id BLOB    NOT NULL,
        PRIMARY KEY (install, session, day)
    ) WITHOUT ROWID;
    INSERT INTO analytic_session_days (install, session, day, last_time_ms, last_event_id)
    SELECT install, session, day, event_time_ms, event_id FROM (
      SELECT install, session, event_time_ms / 86400000 AS day, event_time_ms, event_id,
             ROW_NUMBER() OVER (PARTITION BY install, session, event_time_ms / 86400000 ORDER BY event_time_ms DESC, event_id DESC) AS r
      FROM analytic_events) WHERE r = 1;
    """

    /// Upserts the groups of the log rows `e` the caller's `WHERE` selects (ending in `AND`
    /// nothing: SQLite needs a `WHERE` before an upsert's `ON CONFLICT`).
    static func upsert(where condition: String) -> String {
        """
        INSERT INTO analytic_session_days (install, session, day, last_time_ms, last_event_id)
        SELECT uuid_blob(e.install_id), uuid_blob(e.session_id), e.event_time_ms / 86400000, e.event_time_ms, e.event_id
        FROM events e WHERE \(condition)
        ON CONFLICT (install, session, day) DO UPDATE SET last_time_ms = excluded.last_time_ms, last_event_id = excluded.last_event_id
        WHERE (excluded.last_time_ms, excluded.last_event_id) > (last_time_ms, last_event_id)
        """
    }

    /// A fold's new rows, `?1 < rowid ≤ ?2`.
    static let foldSQL = upsert(where: "e.rowid > ?1 AND e.rowid <= ?2")

    /// Recomputes these installs (as the layer holds them: 16 bytes, or the text of an id that is
    /// not a UUID) from the log rows up to the watermark.
    static func recompute(_ database: SQLiteDatabase, installs: Set<SQLiteValue>, watermark: Int64) throws {
        guard !installs.isEmpty else { return }
        let delete = try database.prepare("DELETE FROM analytic_session_days WHERE install = ?1")
        let insert = try database.prepare(upsert(where: "e.install_id = uuid_text(?1) AND e.rowid <= ?2"))
        for install in installs {
            try delete.run([install])
            try insert.run([install, .integer(watermark)])
        }
    }

    /// An id column as stored (for ``recompute(_:installs:watermark:)``).
    static func storedValue(_ row: SQLiteStatement, _ column: Int32) -> SQLiteValue {
        if row.isNull(column) { return .null }
        return row.isBlob(column) ? .blob(row.blob(column)) : .text(row.text(column) ?? "")
    }
}

import HandzSQLite

/// Keeps the analytical layer (``AnalyticalLayerSchema``) equal to the log. Every function runs on
/// a store connection (``SQLiteEventStore``'s, with `uuid_blob` registered) inside the caller's
/// transaction, so a fold, and a change to the log together with its change to the layer, commit
/// or roll back as one: a crash (kill -9 included) during catch-up leaves the layer where the last
/// commit left it, and the next catch-up goes on from there, folding nothing twice.
///
/// Consistency rules (issue 15 §2):
/// - **New events** reach the layer by ``foldBatch(_:maxRows:)``: by the store's writer whenever
///   its queue is empty (``StoreConfiguration/idleFoldRows``), and by the writers' catch-ups
///   (`serve` before a dashboard page, `import` at its end, `handz-analytics layer`). Analysis
///   never folds (it opens the file read-only): it reads the log while the layer lags.
/// - **Changes to stored events** (`forget-user`'s de-identification, retention, `purge`) change the
///   layer in the same transaction as the log (``refold(_:logRowIDs:)``, ``deleteReceived(_:beforeMs:)``).
/// - The rollups (``SessionRollup``) change with the rows they sum, in the same transactions.
public enum AnalyticalLayer {
    /// Rows folded per transaction by an explicit catch-up (a query, `handz-analytics layer`): short
    /// enough that a running server's writer, which needs the same write lock, waits at most some
    /// tens of milliseconds.
    public static let defaultBatchRows = 20_000

    static let contextList = AnalyticalLayerSchema.contextColumns.joined(separator: ", ")
    static let contextMatch = AnalyticalLayerSchema.contextColumns.map { "c.\($0) = e.\($0)" }.joined(separator: " AND ")

    /// The `SELECT` that turns log rows (`e`) into layer rows; the caller adds the `WHERE`.
    static let foldSelect = """
    SELECT n.id, e.event_time_ms, e.event_id, uuid_blob(e.install_id), uuid_blob(e.session_id), uuid_blob(e.user_id),
           c.id, e.received_time_ms, e.properties
    FROM events e
    JOIN event_names n ON n.name = e.event_name
    JOIN event_contexts c ON \(contextMatch)
    """
    static let insertColumns = "name_id, event_time_ms, event_id, install, session, user, context_id, received_time_ms, properties"

    /// The log's last rowid folded into the layer.
    public static func watermark(_ database: SQLiteDatabase) throws -> Int64 {
        try database.scalar("SELECT value FROM main.analytic_state WHERE key = 'folded_through_rowid'") ?? 0
    }

    /// Log rows not yet in the layer (by rowid; an upper bound when rows were deleted since).
    /// `main.` by name: on a query connection an unqualified `events` is the layer's view.
    public static func lag(_ database: SQLiteDatabase) throws -> Int64 {
        let last = try database.scalar("SELECT COALESCE(MAX(rowid), 0) FROM main.events") ?? 0
        return max(0, last - (try watermark(database)))
    }

    /// Folds the next log rows (at most `maxRows` rowids) into the layer; returns the rows folded
    /// (0 when caught up). Run inside a write transaction.
    @discardableResult
    public static func foldBatch(_ database: SQLiteDatabase, maxRows: Int = defaultBatchRows) throws -> Int {
        let from = try watermark(database)
        let last = try database.scalar("SELECT COALESCE(MAX(rowid), 0) FROM events") ?? 0
        guard last > from else { return 0 }
        let through = min(last, from + Int64(maxRows))
        let range: [SQLiteValue] = [.integer(from), .integer(through)]
        try database.prepare("INSERT OR IGNORE INTO event_names(name) SELECT DISTINCT event_name FROM events WHERE rowid > ?1 AND rowid <= ?2").run(range)
        try database.prepare("INSERT OR IGNORE INTO event_contexts(\(contextList)) SELECT DISTINCT \(contextList) FROM events WHERE rowid > ?1 AND rowid <= ?2").run(range)
        try database.prepare("INSERT OR IGNORE INTO analytic_events(\(insertColumns)) \(foldSelect) WHERE e.rowid > ?1 AND e.rowid <= ?2").run(range)
        let folded = database.changes
        try database.prepare(SessionRollup.foldSQL).run(range)
        try database.prepare("UPDATE analytic_state SET value = ?1 WHERE key = 'folded_through_rowid'").run([.integer(through)])
        return folded
    }

    /// Replaces the layer rows of these log rows with their current contents, after an `UPDATE`
    /// of the log in the same transaction (de-identification). Rows after the watermark are left
    /// to the next fold, which reads them as they are now.
    /// The installs those rows had and have now get their ``SessionRollup`` rows again.
    public static func refold(_ database: SQLiteDatabase, logRowIDs: some Sequence<Int64>) throws {
        let watermark = try watermark(database)
        let statement = try database.prepare("INSERT OR REPLACE INTO analytic_events(\(insertColumns)) \(foldSelect) WHERE e.rowid = ?1")
        // The layer row of a log row, found by its key (a de-identification changes neither the
        // name, nor the time, nor the id): its install before the refold.
        let before = try database.prepare("""
            SELECT a.install FROM events e JOIN event_names n ON n.name = e.event_name
            JOIN analytic_events a ON a.name_id = n.id AND a.event_time_ms = e.event_time_ms AND a.event_id = e.event_id
            WHERE e.rowid = ?1
            """)
        let after = try database.prepare("SELECT uuid_blob(install_id) FROM events WHERE rowid = ?1")
        var installs = Set<SQLiteValue>()
        for rowID in logRowIDs where rowID <= watermark {
            installs.formUnion(try before.query([.integer(rowID)]) { SessionRollup.storedValue($0, 0) })
            try statement.run([.integer(rowID)])
            installs.formUnion(try after.query([.integer(rowID)]) { SessionRollup.storedValue($0, 0) })
        }
        try SessionRollup.recompute(database, installs: installs, watermark: watermark)
    }

    /// Retention and `purge` (same transaction as the log's `DELETE`): drops the layer rows received
    /// before `cutoffMs`, and moves the watermark back if the log's last rows went, so that rowids
    /// SQLite hands out again after them are folded.
    /// The installs that lose events get their ``SessionRollup`` rows again.
    public static func deleteReceived(_ database: SQLiteDatabase, beforeMs cutoffMs: Int64) throws {
        let installs = Set(try database.prepare("SELECT DISTINCT install FROM analytic_events WHERE received_time_ms < ?1")
            .query([.integer(cutoffMs)]) { SessionRollup.storedValue($0, 0) })
        try database.prepare("DELETE FROM analytic_events WHERE received_time_ms < ?1").run([.integer(cutoffMs)])
        try database.execute("""
            UPDATE analytic_state SET value = (SELECT COALESCE(MAX(rowid), 0) FROM events)
            WHERE key = 'folded_through_rowid' AND value > (SELECT COALESCE(MAX(rowid), 0) FROM events)
            """)
        try SessionRollup.recompute(database, installs: installs, watermark: try watermark(database))
    }

    /// Empties the layer; the next catch-up rebuilds it from the log.
    public static func empty(_ database: SQLiteDatabase) throws {
        try database.execute("DELETE FROM analytic_events; DELETE FROM analytic_session_days; DELETE FROM event_contexts; DELETE FROM event_names; UPDATE analytic_state SET value = 0 WHERE key = 'folded_through_rowid'")
    }
}

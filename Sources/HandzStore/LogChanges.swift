import HandzSQLite

/// A counter of the log's rows changed or deleted since the store was made (store migration 7,
/// issue 33): every `UPDATE` or `DELETE` of an `events` row — retention, forget-user,
/// de-identification, a repair by hand — adds one, by trigger, in the same transaction.
///
/// Copies of the log that follow it by rowid (the column store, `HandzColumnStore`) record the
/// counter they were built at: rowids say what was appended since, and an unchanged counter says
/// nothing before them changed. Inserts do not touch it, so the write path pays nothing.
public enum LogChanges {
    static let key = "log_changes"

    static let migrationSQL = """
    INSERT OR IGNORE INTO store_meta (key, value) VALUES ('log_changes', '0');
    CREATE TRIGGER IF NOT EXISTS events_updated_count AFTER UPDATE ON events
    BEGIN UPDATE store_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'log_changes'; END;
    """ + deleteTriggerSQL

    /// The delete trigger alone (the segment engine's upgrade drops it for one statement).
    static let deleteTriggerSQL = """
    CREATE TRIGGER IF NOT EXISTS events_deleted_count AFTER DELETE ON events
    BEGIN UPDATE store_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'log_changes'; END;
    """

    /// The counter now; 0 for a store without it (never changed since migration 7, or older).
    public static func current(_ database: SQLiteDatabase) throws -> Int64 {
        try database.scalar("SELECT CAST(value AS INTEGER) FROM store_meta WHERE key = 'log_changes'") ?? 0
    }

    /// The log's last rowid (0 when empty).
    public static func lastRowID(_ database: SQLiteDatabase) throws -> Int64 {
        try database.scalar("SELECT COALESCE(MAX(rowid), 0) FROM main.events") ?? 0
    }
}

import HandzSQLite

/// A journal of the log's deletions and rewrites (store migration 8, issue 33 §4), written in
/// the same transaction as the change, so a copy that follows the log by rowid (the column store,
/// `HandzColumnStore`) can apply each change to only what it touches — copy on write — instead of
/// rebuilding itself from the whole log.
///
/// An entry says how the change counter (``LogChanges``) moved, from `changesBefore` to
/// `changesAfter`, and what moved it:
/// - **retention** (`receivedBeforeMs`): every row received before the cutoff was deleted;
/// - **de-identification** (`rowIDs`): those rows were updated in place (CH34 §8.3): their event
///   id, name and times are unchanged; ids and references are re-keyed or dropped.
///
/// It holds no event value and no id: a cutoff time and rowids only. Still, a de-identification's
/// rowids are those of the user's rows, so entries are removed once the copy has applied them
/// (`forgetApplied(_:through:)`, the old-versions step). A copy whose counter the
/// entries chain from, without a gap, up to the log's counter applies them in order
/// (``chain(_:from:to:)``); a gap (a repair by hand, an entry already purged) means the copy
/// starts over from the log, which is exact too.
public enum LogRewrites {
    public struct Entry: Sendable, Equatable {
        public var changesBefore: Int64
        public var changesAfter: Int64
        /// The log's last rowid once the change committed: rowids above it that a copy holds were
        /// deleted by it (SQLite reuses the rowids above the largest left).
        public var lastRowID: Int64
        public var receivedBeforeMs: Int64?
        public var rowIDs: [Int64]
    }

    static let migrationSQL = """
    CREATE TABLE IF NOT EXISTS log_rewrites (
        changes_before     INTEGER NOT NULL,
        changes_after      INTEGER NOT NULL PRIMARY KEY,
        last_rowid         INTEGER NOT NULL,
        recorded_time_ms   INTEGER NOT NULL,
        received_before_ms INTEGER,
        row_ids            BLOB
    );
    """

    /// Records the change made in the open transaction since the counter read `before`; nothing
    /// when no row changed.
    static func record(_ database: SQLiteDatabase, before: Int64, nowMs: Int64, receivedBeforeMs: Int64? = nil, rowIDs: [Int64] = []) throws {
        let after = try LogChanges.current(database)
        guard after != before else { return }
        var packed: [UInt8] = []
        packed.reserveCapacity(rowIDs.count * 8)
        for rowID in rowIDs { withUnsafeBytes(of: rowID.littleEndian) { packed += $0 } }
        try database.prepare("""
            INSERT INTO log_rewrites(changes_before, changes_after, last_rowid, recorded_time_ms, received_before_ms, row_ids)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """).run([.integer(before), .integer(after), .integer(try LogChanges.lastRowID(database)), .integer(nowMs),
                      receivedBeforeMs.map { .integer($0) } ?? .null, rowIDs.isEmpty ? .null : .blob(packed)])
    }

    /// Entries up to counter `changes` go once every copy has applied them (the deletion worker's
    /// old-versions step, CH34 §8.3): a de-identification's rowids link the user's rows, old ids
    /// and new, so they are kept no longer than the copy needs them.
    static func forgetApplied(_ database: SQLiteDatabase, through changes: Int64) throws {
        try database.prepare("DELETE FROM log_rewrites WHERE changes_after <= ?1").run([.integer(changes)])
    }

    /// Entries recorded before `cutoffMs` go with retention; a copy that far behind starts over.
    static func purge(_ database: SQLiteDatabase, recordedBeforeMs cutoffMs: Int64) throws {
        try database.prepare("DELETE FROM log_rewrites WHERE recorded_time_ms < ?1").run([.integer(cutoffMs)])
    }

    /// The entries that take a copy built at counter `from` to counter `to`, in order; nil when
    /// they do not chain without a gap (the copy must start over). Empty when `from == to`.
    public static func chain(_ database: SQLiteDatabase, from: Int64, to: Int64) throws -> [Entry]? {
        guard from != to else { return [] }
        guard from < to else { return nil }
        let entries = try database.prepare("""
            SELECT changes_before, changes_after, last_rowid, received_before_ms, row_ids FROM log_rewrites
            WHERE changes_after > ?1 AND changes_after <= ?2 ORDER BY changes_after
            """).query([.integer(from), .integer(to)]) { row in
            let packed = row.blob(4)
            let rowIDs = stride(from: 0, to: packed.count - packed.count % 8, by: 8).map { offset in
                packed[offset..<offset + 8].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
            }
            return Entry(changesBefore: row.int64(0), changesAfter: row.int64(1), lastRowID: row.int64(2),
                         receivedBeforeMs: row.isNull(3) ? nil : row.int64(3), rowIDs: rowIDs)
        }
        var at = from
        for entry in entries {
            guard entry.changesBefore == at else { return nil }
            at = entry.changesAfter
        }
        return at == to ? entries : nil
    }
}

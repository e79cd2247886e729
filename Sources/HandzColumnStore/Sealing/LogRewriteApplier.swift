import HandzAnalyticsCore
import HandzSQLite
import HandzStore

/// Applies the log's journaled deletions and rewrites (`LogRewrites`, CH34) to the chunks they
/// touch, inside a seal's read snapshot, so they are published with the seal's new rows in one
/// manifest swap: retention by the journal's cutoff, and each de-identified row replaced by the
/// log's new version of it (`ChunkRewrites` does the rewriting, the rollup and the tombstones).
///
/// The chunks hold exactly the log's rows through the watermark as they stood when the manifest
/// was published; each journaled change since applies to those rows, so the result is the log's
/// rows as they stand now — what a seal from nothing would give, with other codes.
struct LogRewriteApplier {
    let database: SQLiteDatabase
    let writer: ColumnStoreWriter

    /// Applies `entries` (a chain from the manifest's counter, ``LogRewrites/chain(_:from:to:)``)
    /// to the chunks holding the log's rows through `watermark`. Returns the watermark the seal
    /// goes on from (lower when retention deleted the log's last rows, whose rowids SQLite
    /// reuses) and how many chunks were rewritten or dropped.
    func apply(_ entries: [LogRewrites.Entry], watermark: Int64) throws -> (watermark: Int64, rewritten: Int) {
        let newWatermark = min(watermark, entries.map(\.lastRowID).min() ?? watermark)
        let cutoff = entries.compactMap(\.receivedBeforeMs).max()
        var changedRowIDs = Set<Int64>()
        for entry in entries { changedRowIDs.formUnion(entry.rowIDs.lazy.filter { $0 <= newWatermark }) }

        // The changed rows as the log holds them now, by chunk key.
        var replacements: [ChunkKey: ChunkBuilder] = [:]
        var sessions = SessionRollup.Builder()
        var replacedIDs = Set<UUIDWords>()
        if !changedRowIDs.isEmpty {
            let statement = try database.prepare("SELECT \(LogSealer.selectList) FROM main.events WHERE rowid = ?1")
            var rows = LogRows()
            for rowID in changedRowIDs.sorted() {
                try statement.bind([.integer(rowID)])
                if try statement.step() {
                    replacedIDs.insert(UUIDWords(orderingBytes: statement.bytes(1)))
                    _ = try rows.add(statement, to: &replacements, sessions: &sessions, &writer.dictionaries)
                }
                statement.reset()
            }
        }

        var dirty = InstallCells()
        for key in sessions.sessions.keys { dirty.insert(key.install) }
        let rewritten = try ChunkRewrites(writer: writer).apply(replacements: replacements, replacedIDs: replacedIDs, dirtyInstalls: dirty, receivedBefore: cutoff)
        return (newWatermark, rewritten)
    }
}

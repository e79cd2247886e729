import Foundation
import HandzAnalyticsCore
import HandzSQLite
import HandzStore

/// Moves a store written by the SQLite log (schema 5 and later, the column engine's stores of
/// issue 33) to the segment engine in place, the first time ``SegmentEventStore`` opens it
/// (issue 34 §4). Three steps, each safe to run again after a crash:
///
/// 1. the log is sealed into the column store (``LogSealer``: every row as it stands, journaled
///    deletions applied), so the chunks hold every stored event;
/// 2. the log's event ids become a run of the ``EventIDIndex``, so dedupe stays exact for events
///    an offline queue sends again (a run written twice holds the same ids);
/// 3. the log's rows and journal go in one transaction that marks the store `segments`
///    (``SQLiteEventStore/handLogToSegments()``), and the file is compacted.
///
/// A crash before step 3 leaves the rows in the log and the next open does it all again; after
/// it, the store is a segment store. The SQLite engine refuses it from then on (`serve --engine
/// sqlite`), since new rows in the emptied log would reuse rowids the column store counts as sealed.
enum SegmentStoreUpgrade {
    /// Runs the upgrade when the log holds rows; returns how many moved (0: nothing to do).
    @discardableResult
    static func run(databasePath: String, tables: SQLiteEventStore, index: EventIDIndex, log: (String) -> Void) throws -> Int {
        let database = try SQLiteDatabase(path: databasePath)
        guard try database.scalar("SELECT EXISTS (SELECT 1 FROM main.events)") == 1 else { return 0 }
        log("upgrading the store to the segment engine: sealing the SQLite log's events into the column store")
        // 1. Sealed (the writer, and its lock, let go before the store keeps its own).
        do {
            let writer = try ColumnStoreWriter(directory: ColumnStore.directory(forDatabase: databasePath), lockWait: .seconds(600))
            var sealer = LogSealer()
            sealer.maxPartsPerDay = 1
            guard try !sealer.seal(database, into: writer).abandoned else { throw StoreError.unavailable("the log changed during the upgrade; start again") }
        }
        // 2. The ids, by the order of the log's unique index.
        var ids: [UUIDWords] = []
        var received = (min: Int64.max, max: Int64.min)
        let rows = try database.prepare("SELECT event_id, received_time_ms FROM main.events ORDER BY event_id")
        while try rows.step() {
            ids.append(UUIDWords(orderingBytes: rows.bytes(0)))
            received = (min(received.min, rows.int64(1)), max(received.max, rows.int64(1)))
        }
        try index.persist(ids, minReceivedMs: received.min, maxReceivedMs: received.max)
        // 3. The log emptied, the store marked.
        let moved = try tables.handLogToSegments()
        log("upgraded to the segment engine: \(moved) events moved from the SQLite log into the column store")
        return moved
    }
}

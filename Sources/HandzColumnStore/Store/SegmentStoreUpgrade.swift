import Foundation
import HandzAnalyticsCore
import HandzSQLite
import HandzStore

/// Moves a store written by the SQLite log (schema 5 and later, the column engine's stores of
/// issue 33) to the segment engine in place, the first time ``SegmentEventStore`` opens it
/// (issue 34 §4). The steps, each safe to run again after a crash:
///
/// 0. the segment log's directory is made first, so from the first step on the store is a
///    segment store to every command (`isSegmentStore`) and the SQLite engine refuses it;
/// 1. the log is sealed into the column store (``LogSealer``: every row as it stands, journaled
///    deletions applied), so the chunks hold every stored event;
/// 2. the log's event ids become a run of the ``EventIDIndex``, so dedupe stays exact for events
///    an offline queue sends again (a run written twice holds the same ids);
/// 3. the log's rows and journal go in one transaction that marks the store `segments`, only if
///    the log is still what step 1 sealed (`SQLiteEventStore.handLogToSegments`); then `VACUUM`;
/// 4. the column store's watermark goes back to the emptied log's (rowid 0), so the column
///    store reads as current to the analysis commands (`ColumnStore.isCurrent`) and a row the log
///    ever took again would be sealed, not taken for one sealed before.
enum SegmentStoreUpgrade {
    /// Runs whatever the upgrade has left to do; returns how many events moved (0: none).
    @discardableResult
    static func run(databasePath: String, tables: SQLiteEventStore, index: EventIDIndex, log: (String) -> Void) throws -> Int {
        let database = try SQLiteDatabase(path: databasePath)
        let columns = ColumnStore.directory(forDatabase: databasePath)
        var moved = 0
        if try database.scalar("SELECT EXISTS (SELECT 1 FROM main.events)") == 1 {
            log("upgrading the store to the segment engine: sealing the SQLite log's events into the column store")
            // 0. Marked a segment store on disk before anything moves.
            try DurableFile.makeDirectory(SegmentEventStore.segmentsDirectory(forDatabase: databasePath))
            // 1. Sealed (the writer, and its lock, let go before the store keeps its own).
            let sealed: (rowID: Int64, changes: Int64)
            do {
                let writer = try ColumnStoreWriter(directory: columns, lockWait: .seconds(600))
                var sealer = LogSealer()
                sealer.maxPartsPerDay = 1
                guard try !sealer.seal(database, into: writer).abandoned else { throw StoreError.unavailable("the log changed during the upgrade; open the store again") }
                sealed = (writer.manifest.sealedThroughRowID, writer.manifest.logChanges)
            }
            // 2. The ids, in the order of the log's unique index.
            var ids: [UUIDWords] = []
            var received = (min: Int64.max, max: Int64.min)
            let rows = try database.prepare("SELECT event_id, received_time_ms FROM main.events ORDER BY event_id")
            while try rows.step() {
                ids.append(UUIDWords(orderingBytes: rows.bytes(0)))
                received = (min(received.min, rows.int64(1)), max(received.max, rows.int64(1)))
            }
            try index.persist(ids, throughSegment: 0, minReceivedMs: received.min, maxReceivedMs: received.max)
            // 3. The log emptied, if it is still what was sealed; the store marked.
            moved = try tables.handLogToSegments(sealedThroughRowID: sealed.rowID, logChanges: sealed.changes)
            log("upgraded to the segment engine: \(moved) events moved from the SQLite log into the column store")
        }
        // A new store, or one made before stores recorded their engine: marked, so a reader of
        // the SQLite file alone (`StoreAnalysis`) knows its log holds none of the events.
        if try SQLiteEventStore.engine(database) != "segments" { try tables.markSegmentEngineNow() }
        // 4. The watermark of the emptied log (also after a crash between 3 and 4).
        if FileManager.default.fileExists(atPath: columns + "/" + ColumnManifest.fileName),
           try ColumnStore(directory: columns).manifest.sealedThroughRowID > 0, try LogChanges.lastRowID(database) == 0 {
            let writer = try ColumnStoreWriter(directory: columns, lockWait: .seconds(600))
            try writer.publish(sealedThroughRowID: 0, logChanges: try LogChanges.current(database))
        }
        return moved
    }
}

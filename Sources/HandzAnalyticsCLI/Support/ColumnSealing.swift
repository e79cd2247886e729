import ArgumentParser
import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzStore

/// The column store beside an embedded store (issue 33): sealed by the commands that write the
/// store (`import`, `layer`), read by the analysis commands when it holds exactly the log's events.
enum ColumnSealing {
    /// Seals the log's new events into `db`'s column store, with progress on standard error.
    @discardableResult
    static func seal(db: String, lockWait: Duration = .seconds(600)) throws -> LogSealer.Outcome {
        let progress = ProgressLine()
        defer { progress.finish() }
        let database = try SQLiteDatabase(path: db)
        let writer = try ColumnStoreWriter(directory: ColumnStore.directory(forDatabase: db), lockWait: lockWait)
        return try LogSealer().seal(database, into: writer) { rows in progress.update("sealing into column chunks: \(rows) events") }
    }

    /// After a deletion or retention in `db`'s log (CH34): its column store, if it has one, seals,
    /// which rewrites the chunks the change touched (issue 33 §4). Nothing when there is none.
    /// When `serve` holds the column store (its writer, for the server's life), the change is
    /// left to its next seal: a few seconds, its background seal's interval at most; the
    /// deletion worker's old-versions step removes a copy that is still behind (CH34).
    static func follow(db: String) throws {
        guard FileManager.default.fileExists(atPath: ColumnStore.directory(forDatabase: db) + "/" + ColumnManifest.fileName) else { return }
        do {
            try seal(db: db, lockWait: .seconds(5))
        } catch let error as ColumnStoreError where error.code == .busy {
            FileHandle.standardError.write(Data("note: another process (`serve`) holds the column store of \(db); it rewrites the chunks this change touched at its next seal.\n".utf8))
        }
    }

    /// The column store of `db` when it is current (sealed through the log's last event, nothing
    /// changed since); nil otherwise, and the caller reads the SQLite copies.
    /// When there is none, or it is behind, standard error says so once: the answer reads the
    /// log (every stored event counted, slower).
    static func currentStore(db: String, cache: ColumnCache? = nil) throws -> ColumnStore? {
        if isSegmentStore(db) { try sealWaitingSegments(db: db) }
        let directory = ColumnStore.directory(forDatabase: db)
        guard FileManager.default.fileExists(atPath: directory + "/" + ColumnManifest.fileName) else {
            noteReadingTheLog(db, "has no column store")
            return nil
        }
        let store = try ColumnStore(directory: directory, cache: cache)
        let log = try SQLiteDatabase(path: db, readOnly: true)
        guard try store.isCurrent(with: log) else {
            noteReadingTheLog(db, "has events its column store does not hold yet")
            return nil
        }
        return store
    }

    /// A segment store's events still in segments (its `serve` killed, or a store just restored)
    /// are sealed before an answer reads the chunks, which hold only what was sealed (issue 34).
    /// Beside a running `serve`, which holds the log and seals every half second, the chunks are
    /// read as they are.
    static func sealWaitingSegments(db: String) throws {
        guard SegmentEventStore.segmentsHoldFrames(databasePath: db) else { return }
        let store: SegmentEventStore
        do {
            store = try SegmentEventStore(path: db) { FileHandle.standardError.write(Data("note: \($0)\n".utf8)) }
        } catch let error as SegmentLogError where error.code == .busy {
            return
        }
        defer { store.closeNow() }
        try store.sealIfNeeded()
    }

    private static let noted = Locked(false)

    private static func noteReadingTheLog(_ db: String, _ why: String) {
        guard !noted.withLock({ seen in defer { seen = true }; return seen }) else { return }
        FileHandle.standardError.write(Data("note: the store \(why); this answer reads the log (every stored event counted, slower). `handz-analytics layer --db \(db)` seals it.\n".utf8))
    }

    /// The column engine for the panels and KPIs of `db` when its column store is current, with
    /// the store's `install_first_seen` (read-only); nil otherwise. Its queries share decoded
    /// columns (``ColumnCache``): the panels of a render read the same chunks.
    static func currentPanels(db: String, catalog: Catalog) throws -> ColumnPanels? {
        guard let store = try currentStore(db: db, cache: ColumnCache()) else { return nil }
        return ColumnPanels(store: store, catalog: catalog, firstSeen: InstallFirstSeenTimes.reading(path: db))
    }
}

/// `--via auto|columns|sqlite` for `kpi` and `dashboard render`: which engine answers. `auto`,
/// the default, is the column engine when the store's column copy is current, for every query it
/// answers, and SQLite for the others; `columns` insists on a current column copy; `sqlite` never
/// reads it. Same numbers (the tests hold the engines together).
///
/// A segment store (issue 34) has no events in its SQLite log: its column store is the only
/// reader, `sqlite` is refused and `auto` never falls back to the (empty) log.
enum AnalysisEngine: String, ExpressibleByArgument, CaseIterable {
    case auto, columns, sqlite

    /// The column engine to try first, per this choice.
    func panels(db: String, catalog: Catalog) throws -> ColumnPanels? {
        try refuseTheLogOfSegmentStore(db)
        guard self != .sqlite else { return nil }
        if let panels = try ColumnSealing.currentPanels(db: db, catalog: catalog) { return panels }
        try requireColumns(db)
        return nil
    }

    /// An answer from the column store when this choice allows it and the copy is current, else
    /// from the SQL on the log (`trend`, `paths`); refused on a segment store's empty log.
    func answer<T>(_ store: AnalysisStoreOptions, catalog: Catalog, columns: (ColumnStore) throws -> T, log: (StoreAnalysis) throws -> T) throws -> T {
        try refuseTheLogOfSegmentStore(store.db)
        if self != .sqlite, let current = try ColumnSealing.currentStore(db: store.db) { return try columns(current) }
        try requireColumns(store.db)
        return try log(store.open(catalog))
    }

    /// Refuses `--via sqlite` on a segment store, whose SQLite log holds none of its events.
    func refuseTheLogOfSegmentStore(_ db: String) throws {
        guard self == .sqlite, isSegmentStore(db) else { return }
        throw ValidationError("--via sqlite reads the SQLite log, which holds none of a segment store's events; `handz-analytics export sqlite --db \(db) --out FILE` writes them as an events table")
    }

    /// Called when the column store is not current: fails unless this choice may read the log.
    func requireColumns(_ db: String) throws {
        guard self == .columns || isSegmentStore(db) else { return }
        throw CleanFailure("the column store of \(db) is not current: `handz-analytics layer --db \(db)` seals it")
    }
}

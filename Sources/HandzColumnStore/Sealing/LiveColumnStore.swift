import Foundation
import HandzAnalyticsCore
import HandzSQLite
import HandzStore
import Synchronization

/// The column store beside a store that is being written (`serve`): sealed in the background
/// every few seconds, and **on demand before a page is drawn**, so an event the endpoint
/// acknowledged before the page was asked for is in its answer (issue 33 §3: the "seal on
/// demand" choice, not a read of the unsealed tail).
///
/// A page waits for the seal of whatever the log holds past the watermark, and for the log's
/// journaled deletions to reach the chunks (copy on write), or for a seal from nothing when the
/// store was never sealed or was removed: sealing runs at about 60,000 events a second on one
/// core, far faster than reading the log for each panel. Only a seal that cannot take the
/// writer's lock within a minute (another process sealing a large store) leaves the page to the
/// SQLite log, exactly and more slowly. Seals here keep up to 8 parts per (event, day) and merge
/// them by size (``ColumnStoreWriter/mergeParts(maxParts:)``), so the open day is not rewritten
/// at every seal.
///
/// One writer for the process's life, kept between seals (re-reading the UUID dictionary for each
/// seal would cost more than the seal), holding the store's write lock: a `layer` command on the
/// same file waits until `serve` stops.
public final class LiveColumnStore: Sendable {
    public let databasePath: String
    public let catalog: Catalog
    /// The segment log, when the store's write path is one (`serve --engine segments`, issue 34):
    /// every seal seals its closed segments after the SQLite log's rows.
    public let segments: SegmentEventStore?
    /// The process's writer: the segment engine's own when there is one (its deletions use it too).
    private let writer: ColumnWriterSlot
    /// The last store opened for reading, with the manifest file's identity (inode, size, time)
    /// it was opened at: reused while the manifest is the same file, so its caches (the UUID
    /// dictionary, the user map) serve every page of that generation.
    private let reader = Mutex<(identity: [Int], store: ColumnStore)?>(nil)

    /// What the pages of one generation keep decoded (``ColumnCache``).
    static let cacheBudget = 384 << 20

    public init(databasePath: String, catalog: Catalog, segments: SegmentEventStore? = nil) {
        self.databasePath = databasePath
        self.catalog = catalog
        self.segments = segments
        writer = segments?.columns ?? ColumnWriterSlot(directory: ColumnStore.directory(forDatabase: databasePath))
    }

    var directory: String { ColumnStore.directory(forDatabase: databasePath) }

    /// The column engine for one page: the tail sealed first. Nil when the column store cannot
    /// hold every event stored before the call (the caller reads the SQLite log).
    public func engine() throws -> ColumnPanels? {
        let log = try SQLiteDatabase(path: databasePath, readOnly: true)
        let (last, changes) = (try LogChanges.lastRowID(log), try LogChanges.current(log))
        var store = try current()
        if try !Self.holds(store.manifest, through: last, changes: changes) || segments?.hasUnsealedEvents() == true {
            // Whatever it takes: the tail, the journaled deletions, or a seal from nothing (a
            // store never sealed, or one the old-versions step removed), far faster than
            // reading the log for every panel.
            guard try seal(lockWait: .seconds(60))?.abandoned == false else { return nil }
            store = try current()
            guard Self.holds(store.manifest, through: last, changes: changes) else { return nil }
        }
        return ColumnPanels(store: store, catalog: catalog, firstSeen: InstallFirstSeenTimes(loading: { [self] in try firstSeenTable() }))
    }

    /// `install_first_seen` as last read, and the SQLite file's `PRAGMA data_version` it was read
    /// at, on a read-only connection kept open (its data version moves whenever another
    /// connection commits, sqlite.org/pragma.html#pragma_data_version).
    private struct KeptFirstSeen: @unchecked Sendable {
        var watch: SQLiteDatabase?
        var version: Int64 = -1
        var table: InstallFirstSeenTimes.Table?
    }
    private let keptFirstSeen = Mutex(KeptFirstSeen())

    /// The first-seen table for a page: the kept one unless something committed to the SQLite
    /// file since it was read (the version is looked at before the read, so a commit during the
    /// read makes the next page read again). Reading it for every page was ~35 ms of a 70 ms
    /// trend at 100,000 installs (perf).
    func firstSeenTable() throws -> InstallFirstSeenTimes.Table {
        try keptFirstSeen.withLock { kept in
            let watch = try kept.watch ?? SQLiteDatabase(path: databasePath, readOnly: true)
            kept.watch = watch
            let version = try watch.scalar("PRAGMA data_version") ?? 0
            if let table = kept.table, kept.version == version { return table }
            let table = try InstallFirstSeenTimes.Table(database: watch)
            (kept.version, kept.table) = (version, table)
            return table
        }
    }

    /// The store as its last seal left it, without sealing (nil before the first seal): what a
    /// page's cache check reads before it waits for the page gate.
    public func sealedStore() throws -> ColumnStore? {
        let store = try current()
        return store.manifest.generation > 0 ? store : nil
    }

    /// Whether `manifest` holds every log row through `rowID` as the log stands (`changes`).
    static func holds(_ manifest: ColumnManifest, through rowID: Int64, changes: Int64) -> Bool {
        manifest.generation > 0 && manifest.sealedThroughRowID >= rowID && manifest.logChanges == changes
    }

    /// Seals what the log holds past the watermark (the background service, and ``engine()``);
    /// nil when another seal held the writer for longer than `lockWait`. A failed seal drops the
    /// kept writer (a deletion may have discarded its directory); the next one opens a new one.
    @discardableResult
    public func seal(lockWait: Duration) throws -> LogSealer.Outcome? {
        try writer.withWriter(lockWait: lockWait) { writer, drop in
            let database = try SQLiteDatabase(path: databasePath)
            var sealer = LogSealer()
            sealer.maxPartsPerDay = 8
            // The server's memory bound (HandzServer docs, "Operations") leaves the seal little:
            // rows are written as parts every 20,000 (a few MiB held), not every million.
            sealer.rowsPerPart = 20_000
            let outcome = try sealer.seal(database, into: writer)
            if outcome.abandoned { drop = true } else { try segments?.seal(into: writer) }
            return outcome
        }
    }

    /// Rows the column store has not sealed yet: 0 when current, at least 1 while a deletion in
    /// the log is not applied to the chunks yet.
    public func unsealedRows() throws -> Int64 {
        let log = try SQLiteDatabase(path: databasePath, readOnly: true)
        let (last, changes) = (try LogChanges.lastRowID(log), try LogChanges.current(log))
        let manifest = try current().manifest
        // Frames waiting in the segment log count as one row: their number is not kept in memory.
        if try segments?.hasUnsealedEvents() == true { return max(1, last - manifest.sealedThroughRowID) }
        guard manifest.generation > 0 else { return last }
        // A deletion not applied yet counts as at least one row, even when it emptied the log.
        return manifest.logChanges == changes ? max(0, last - manifest.sealedThroughRowID) : max(1, last - manifest.sealedThroughRowID)
    }

    /// The store as its manifest stands: the kept one while the manifest file is the same.
    func current() throws -> ColumnStore {
        let identity = Self.identity(directory + "/" + ColumnManifest.fileName)
        if let kept = reader.withLock({ $0 }), kept.identity == identity, !identity.isEmpty { return kept.store }
        // The pages of one generation share decoded columns (the same chunks, page after page).
        let store = try ColumnStore(directory: directory, cache: ColumnCache(budgetBytes: Self.cacheBudget))
        reader.withLock { $0 = (identity, store) }
        return store
    }

    /// The file's inode, size and modification time (nanoseconds); empty when it is missing.
    static func identity(_ path: String) -> [Int] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        return [Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
    }
}

import HandzAnalyticsCore
import HandzSQLite
import HandzStore
import Synchronization

/// A column store opened for reading: its manifest, its string dictionary, and its chunks read on
/// demand. It lives in a directory beside the SQLite log (``directory(forDatabase:)``). Readers
/// never write: a store that has never been sealed reads as empty.
///
/// The UUID dictionary (every install, session and user id, and the ids properties carry) is
/// read only when a caller needs id text (``uuidDictionary()``): funnels and KPIs group and link
/// on codes.
public final class ColumnStore: @unchecked Sendable {
    public let directory: String
    public let manifest: ColumnManifest
    /// The string dictionary (the UUID half empty until ``uuidDictionary()``).
    public let strings: Dictionaries
    /// One key per distinct text across column types (``TextKeys``).
    public let textKeys: TextKeys

    /// `handz-events.sqlite` → `handz-events.sqlite.columns` (HandzStore's `ColumnStoreCopy`).
    public static func directory(forDatabase path: String) -> String { ColumnStoreCopy.directory(forDatabase: path) }

    /// Decoded columns kept across the queries on this store (``ColumnCache``); nil: none kept
    /// (a single command reads each column once anyway).
    public let cache: ColumnCache?

    public init(directory: String, cache: ColumnCache? = nil) throws(ColumnStoreError) {
        self.directory = directory
        self.cache = cache
        let manifestPath = directory + "/" + ColumnManifest.fileName
        if DurableFile.exists(manifestPath) {
            manifest = try ColumnManifest.decode(try DurableFile.read(manifestPath, name: ColumnManifest.fileName))
        } else {
            manifest = .empty
        }
        let strings = Dictionaries(uuids: [], strings: try Self.readStrings(directory, manifest))
        self.strings = strings
        let manifest = manifest
        textKeys = try TextKeys(strings: strings) { () throws(ColumnStoreError) in try Self.readUUIDs(directory, manifest) }
    }

    static func readStrings(_ directory: String, _ manifest: ColumnManifest) throws(ColumnStoreError) -> [String] {
        try readDictionary(directory, manifest.strings) { bytes, count throws(ChunkFormatError) in try DictionaryEncoding.readStrings(bytes, count: count) }
    }

    static func readUUIDs(_ directory: String, _ manifest: ColumnManifest) throws(ColumnStoreError) -> [UUIDWords] {
        try readDictionary(directory, manifest.uuids) { bytes, count throws(ChunkFormatError) in try DictionaryEncoding.readUUIDs(bytes, count: count) }
    }

    /// A dictionary file up to the length the manifest counts, decoded by `records`.
    static func readDictionary<Entry>(_ directory: String, _ file: ColumnManifest.DictionaryFile,
                                      _ records: (UnsafeRawBufferPointer, Int) throws(ChunkFormatError) -> [Entry]) throws(ColumnStoreError) -> [Entry] {
        guard file.count > 0 else { return [] }
        let bytes = try DurableFile.readPrefix(directory + "/" + file.file, name: file.file, length: file.bytes)
        do throws(ChunkFormatError) {
            return try bytes.withFormatBytes { buffer throws(ChunkFormatError) in try records(buffer, file.count) }
        } catch { throw ColumnStoreError(error, file: file.file) }
    }

    /// Both dictionaries, the UUIDs read on the first call (then kept: the store is immutable).
    public func uuidDictionary() throws(ColumnStoreError) -> Dictionaries {
        try loadedUUIDs.withLock { loaded throws(ColumnStoreError) in
            if let loaded { return loaded }
            let both = Dictionaries(uuids: try Self.readUUIDs(directory, manifest), strings: strings.strings)
            loaded = both
            return both
        }
    }
    private let loadedUUIDs = Mutex<Dictionaries?>(nil)

    /// Each install's user (``UserMap``), read from every chunk on the first call, then kept.
    public func userMap() throws(ColumnStoreError) -> UserMap {
        try loadedUserMap.withLock { loaded throws(ColumnStoreError) in
            if let loaded { return loaded }
            let map = try UserMap(store: self)
            loaded = map
            return map
        }
    }
    private let loadedUserMap = Mutex<UserMap?>(nil)

    /// Reads and checks one chunk's header (its blocks are checked as they are read).
    public func chunk(_ entry: ColumnManifest.ChunkEntry) throws(ColumnStoreError) -> ChunkFile {
        if let kept = cache?.chunk(entry.file) { return kept }
        let chunk = try ChunkReading(directory: directory).chunk(entry)
        defer { cache?.keep(chunk, file: entry.file) }
        guard chunk.eventName == entry.event, chunk.day == entry.day, chunk.rows == entry.rows else {
            throw ColumnStoreError(.corruptFile, file: entry.file, reason: "its header differs from the manifest's entry")
        }
        return chunk
    }

    /// One chunk's columns for a query, through the store's cache when it keeps one.
    func columns(_ entry: ColumnManifest.ChunkEntry) throws(ColumnStoreError) -> ChunkColumns {
        ChunkColumns(chunk: try chunk(entry), file: entry.file, cache: cache)
    }

    /// The chunks of `events` that may hold an event time in [fromMs, toMs).
    public func chunks(events: Set<String>, fromMs: Int64, toMs: Int64) -> [ColumnManifest.ChunkEntry] {
        manifest.chunks.filter { events.contains($0.event) && $0.maxTimeMs >= fromMs && $0.minTimeMs < toMs }
    }

    /// Whether the chunks hold exactly the log's events: sealed through its last rowid, with no
    /// row changed or deleted since (`LogChanges`).
    public func isCurrent(with log: SQLiteDatabase) throws -> Bool {
        let (lastRowID, changes) = (try LogChanges.lastRowID(log), try LogChanges.current(log))
        return manifest.generation > 0 && manifest.sealedThroughRowID == lastRowID && manifest.logChanges == changes
    }

    /// The distinct catalog versions of the events in [fromMs, toMs), sorted (what
    /// `StoreAnalysis.catalogVersions` reads from SQLite): from the manifest for chunks the range
    /// covers whole, from their rows for a chunk it cuts.
    public func catalogVersions(fromMs: Int64, toMs: Int64) throws -> [String] {
        var versions = Set<String>()
        for entry in manifest.chunks where entry.maxTimeMs >= fromMs && entry.minTimeMs < toMs {
            // Nothing new to find in it, or all of it in the range: no read.
            if versions.isSuperset(of: entry.catalogVersions) { continue }
            if entry.minTimeMs >= fromMs && entry.maxTimeMs < toMs {
                versions.formUnion(entry.catalogVersions)
                continue
            }
            let read = try columns(entry)
            let times = try read.times(ColumnName.eventTime)
            let type = read.chunk.entry(ColumnName.catalogVersion)?.type ?? .string
            let codes = try read.codesIfPresent(ColumnName.catalogVersion, type: type, strings: strings) ?? []
            for (row, code) in codes.enumerated() where times[row] >= fromMs && times[row] < toMs {
                if let text = strings.text(code, type: type) { versions.insert(text) }
            }
        }
        return versions.sorted()
    }

    /// The first and last device times of the events not dated after their own receipt by more
    /// than `toleranceMs`, nil when there are none (what `StoreAnalysis.eventTimeRange` reads
    /// from SQLite, issue 32 §2). The chunks are walked from each end, day by day, until a day
    /// holds such an event: a day of only future-dated events costs one read of two columns.
    public func eventTimeRange(toleranceMs: Int64) throws -> (first: Int64, last: Int64)? {
        let days = Set(manifest.chunks.map(\.day)).sorted()
        func extreme(of day: Int64, latest: Bool) throws -> Int64? {
            var found: Int64?
            for entry in manifest.chunks where entry.day == day {
                let read = try columns(entry)
                let times = try read.times(ColumnName.eventTime)
                let received = try read.times(ColumnName.receivedTime)
                for (row, time) in times.enumerated() where time <= received[row] + toleranceMs {
                    if let known = found, latest ? known >= time : known <= time { continue }
                    found = time
                }
            }
            return found
        }
        var first: Int64?
        for day in days {
            first = try extreme(of: day, latest: false)
            if first != nil { break }
        }
        guard let first else { return nil }
        for day in days.reversed() {
            if let last = try extreme(of: day, latest: true) { return (first, last) }
        }
        return (first, first)
    }

    /// Stored rows in every chunk.
    public var rowCount: Int { manifest.chunks.reduce(0) { $0 + $1.rows } }
}

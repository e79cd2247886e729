import Foundation
import HandzAnalyticsCore

/// The one writer of a column store directory: seals builders into chunk files, merges a day's
/// parts, and publishes each change through the manifest (``ColumnManifest``'s steps). One writer
/// at a time, across processes too (`serve`'s background seal, `layer`, `import`): the writer
/// holds an exclusive `flock` on `DIRECTORY.lock` from its creation until it is released (kept
/// beside the directory, so that removing the directory does not release it).
///
/// Opening it tidies what a crash left: dictionary bytes past the manifest's counts are cut at
/// the next append, and files in the directory that the manifest does not list (a seal that
/// wrote chunks but never published) are removed.
public final class ColumnStoreWriter {
    public let directory: String
    public private(set) var manifest: ColumnManifest
    public internal(set) var dictionaries: Dictionaries
    /// Chunk entries written since the last publish, and the files the next publish retires.
    var written: [ColumnManifest.ChunkEntry] = []
    var retired: [ColumnManifest.ChunkEntry] = []
    var sequence = 0

    /// The lock's descriptor (closing it releases the lock; the kernel does if the process dies).
    private let lockDescriptor: Int32

    /// Waits up to `lockWait` for another writer to finish, polling every 20 ms.
    public init(directory: String, lockWait: Duration = .seconds(600)) throws(ColumnStoreError) {
        self.directory = directory
        lockDescriptor = try Self.lock(directory + ".lock", wait: lockWait)
        do {
            try DurableFile.makeDirectory(directory)
            (manifest, dictionaries) = try Self.tidy(directory)
        } catch {
            close(lockDescriptor)
            throw error
        }
    }

    deinit { close(lockDescriptor) }

    static func lock(_ path: String, wait: Duration) throws(ColumnStoreError) -> Int32 {
        let name = (path as NSString).lastPathComponent
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ColumnStoreError(.ioFailed, file: name, reason: String(cString: strerror(errno))) }
        let deadline = ContinuousClock.now + wait
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                throw ColumnStoreError(.busy, file: name, reason: "another writer holds the column store")
            }
            usleep(20_000)
        }
        return descriptor
    }

    /// Reads the manifest and the dictionaries, and removes what a crashed writer left.
    private static func tidy(_ directory: String) throws(ColumnStoreError) -> (ColumnManifest, Dictionaries) {
        let reader = try ColumnStore(directory: directory)
        let manifest = reader.manifest
        let dictionaries = Dictionaries(uuids: try ColumnStore.readUUIDs(directory, manifest), strings: reader.strings.strings)
        let live = Set([ColumnManifest.fileName, manifest.uuids.file, manifest.strings.file] + manifest.allChunks.map(\.file))
        for name in DurableFile.list(directory) where !live.contains(name) { DurableFile.remove(directory + "/" + name) }
        return (manifest, dictionaries)
    }

    /// Encodes `builder`'s rows as a chunk file, written and flushed under a new name; it becomes
    /// live at the next ``publish(sealedThroughRowID:logChanges:sealedThroughSegment:)``.
    public func write(_ builder: ChunkBuilder) throws(ColumnStoreError) {
        guard builder.rowCount > 0 else { return }
        try write(eventName: builder.eventName, day: builder.day, columns: builder.columns(&dictionaries))
    }

    func write(eventName: String, day: Int64, columns: [Column]) throws(ColumnStoreError) {
        sequence += 1
        let name = "\(eventName).\(day).\(manifest.generation + 1)-\(sequence).chunk"
        let bytes = ChunkEncoder.encode(eventName: eventName, day: day, columns: columns)
        try DurableFile.publish(bytes, to: directory + "/" + name, name: name)
        SealFault.reached("chunk-written")
        var times: [Int64] = []
        if case .times(let values)? = columns.first(where: { $0.name == ColumnName.eventTime })?.values { times = values }
        var versions: [String] = []
        if let column = columns.first(where: { $0.name == ColumnName.catalogVersion }), case .codes(let codes) = column.values {
            versions = Set(codes).compactMap { dictionaries.text($0, type: column.type) }.sorted()
        }
        written.append(ColumnManifest.ChunkEntry(file: name, event: eventName, day: day, rows: columns.first?.values.count ?? 0,
                                                 bytes: bytes.count, minTimeMs: times.min() ?? 0, maxTimeMs: times.max() ?? 0,
                                                 catalogVersions: versions))
    }

    /// Every (event, day) with more than `maxParts` chunks, live or written since the last
    /// publish, is merged: with `maxParts` 1 (a bulk seal: `import`, `layer`) into one chunk; above
    /// it (`serve`'s frequent seals of the open day) size-tiered, as LSM trees merge: the smaller
    /// parts into one, and the largest with them only when they hold at least half its rows — so
    /// a row is rewritten a logarithmic number of times, not at every seal. The parts' rows are
    /// merged in the chunk order; the parts are retired at the next publish.
    public func mergeParts(maxParts: Int = 1) throws(ColumnStoreError) {
        let live = liveChunks
        var groups: [String: [ColumnManifest.ChunkEntry]] = [:]
        for entry in live { groups["\(entry.event)\u{0}\(entry.day)", default: []].append(entry) }
        let reader = ChunkReading(directory: directory)
        for key in groups.keys.sorted() {
            guard var parts = groups[key], parts.count > max(maxParts, 1) else { continue }
            if maxParts > 1 {
                parts.sort { ($0.rows, $0.file) < ($1.rows, $1.file) }
                let largest = parts[parts.count - 1]
                if parts.dropLast().reduce(0, { $0 + $1.rows }) * 2 < largest.rows { parts.removeLast() }
                guard parts.count > 1 else { continue }
            }
            var chunks: [ChunkFile] = []
            for part in parts { chunks.append(try reader.chunk(part)) }
            var merged: [Column]
            do { merged = try ChunkMerge.merge(chunks, &dictionaries) } catch { throw ColumnStoreError(error, file: parts[0].file) }
            if parts[0].event == SessionRollup.eventName { merged = SessionRollup.deduplicated(merged) }
            let newFiles = Set(written.map(\.file))
            written.removeAll { entry in parts.contains { $0.file == entry.file } }
            retired += parts.filter { !newFiles.contains($0.file) }
            // A part written since the last publish was never live: it goes with the publish too.
            abandoned += parts.filter { newFiles.contains($0.file) }.map(\.file)
            try write(eventName: parts[0].event, day: parts[0].day, columns: merged)
        }
    }

    /// Seals from nothing (after deletions in the log): every live chunk is retired and the
    /// dictionaries start empty under new file names, so the next publish leaves no byte of the
    /// old chunks or dictionaries in the directory.
    public func startOver() {
        retired = manifest.allChunks
        abandoned += written.map(\.file)
        written = []
        abandoned += [manifest.uuids.file, manifest.strings.file]
        let generation = manifest.generation + 1
        manifest.uuids = ColumnManifest.DictionaryFile(file: "uuids.\(generation).dict", count: 0, bytes: 0)
        manifest.strings = ColumnManifest.DictionaryFile(file: "strings.\(generation).dict", count: 0, bytes: 0)
        dictionaries = Dictionaries()
        manifest.format = ColumnManifest.currentFormat
    }

    /// Files written and merged away before they were ever published.
    var abandoned: [String] = []

    /// The chunks live once the next publish is made: the manifest's not retired, and those written since.
    var liveChunks: [ColumnManifest.ChunkEntry] {
        let retiredFiles = Set(retired.map(\.file))
        return manifest.allChunks.filter { !retiredFiles.contains($0.file) } + written
    }

    /// `entry`, live now, is removed by the next publish (a rewrite replaced it).
    func retire(_ entry: ColumnManifest.ChunkEntry) {
        if !retired.contains(where: { $0.file == entry.file }) { retired.append(entry) }
    }

    /// Tombstones `codes` in the UUID dictionary (ids no live chunk refers to any more, CH34) and
    /// has the next publish write the dictionary whole under a new name, so the old file, with
    /// the forgotten ids, is removed once the manifest no longer lists it.
    func forgetUUIDs(_ codes: Set<UInt32>) {
        guard dictionaries.tombstone(uuidCodes: codes) > 0 else { return }
        if manifest.uuids.count > 0 { abandoned.append(manifest.uuids.file) }
        manifest.uuids = ColumnManifest.DictionaryFile(file: "uuids.\(manifest.generation + 1).dict", count: 0, bytes: 0)
    }

    /// Makes every chunk written since the last publish live, retires the merged parts, records
    /// the dictionaries' new entries and how far the log is sealed: dictionaries appended and
    /// flushed, then the manifest replaced atomically, then the retired files removed.
    public func publish(sealedThroughRowID: Int64, logChanges: Int64? = nil, sealedThroughSegment: UInt64? = nil) throws(ColumnStoreError) {
        var next = manifest
        next.generation += 1
        next.sealedThroughRowID = sealedThroughRowID
        if let sealedThroughSegment { next.sealedThroughSegment = sealedThroughSegment }
        if let logChanges { next.logChanges = logChanges }
        let uuidTail = DictionaryEncoding.uuidRecords(dictionaries.uuids[manifest.uuids.count...])
        try DurableFile.append(uuidTail, to: directory + "/" + manifest.uuids.file, name: manifest.uuids.file, at: manifest.uuids.bytes)
        next.uuids.count = dictionaries.uuids.count
        next.uuids.bytes = manifest.uuids.bytes + uuidTail.count
        let stringTail = DictionaryEncoding.stringRecords(dictionaries.strings[manifest.strings.count...])
        try DurableFile.append(stringTail, to: directory + "/" + manifest.strings.file, name: manifest.strings.file, at: manifest.strings.bytes)
        next.strings.count = dictionaries.strings.count
        next.strings.bytes = manifest.strings.bytes + stringTail.count
        SealFault.reached("dictionaries-appended")
        let retiredFiles = Set(retired.map(\.file))
        next.setChunks(manifest.allChunks.filter { !retiredFiles.contains($0.file) } + written)
        try DurableFile.publish(next.encoded(), to: directory + "/" + ColumnManifest.fileName, name: ColumnManifest.fileName)
        SealFault.reached("manifest-published")
        manifest = next
        for file in retiredFiles.union(abandoned) { DurableFile.remove(directory + "/" + file) }
        written = []
        retired = []
        abandoned = []
        sequence = 0
    }
}

/// Reads chunk files of a directory without a manifest of its own (the writer's parts).
struct ChunkReading {
    let directory: String

    func chunk(_ entry: ColumnManifest.ChunkEntry) throws(ColumnStoreError) -> ChunkFile {
        let bytes = try DurableFile.read(directory + "/" + entry.file, name: entry.file)
        do { return try ChunkFile(bytes: bytes) } catch { throw ColumnStoreError(error, file: entry.file) }
    }
}

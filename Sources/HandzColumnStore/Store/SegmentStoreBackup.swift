import Foundation
import HandzStore

/// Online backups of a segment store (issue 34 §5; the SQLite engine's backup is HandzStore's
/// `StoreBackup`): a directory holding a whole store named ``storeName`` — the SQLite file, its
/// segments, its id runs and its column store — taken while `serve` goes on writing.
///
/// The parts are copied in the order that makes the copy a state a crash could have left, so the
/// store's own recovery makes it whole when it is opened:
/// 1. **the segment files** (the open one up to what was written: a torn tail is cut on open). A
///    segment removed before it was copied had been sealed, so its events are in the chunks
///    copied in step 4;
/// 2. **the id runs**, from their manifest (copied again when a merge removed a listed run): the
///    ids of every segment sealed before step 1 are in them, since a seal persists its ids before
///    it removes its segments;
/// 3. **the SQLite file**, one consistent snapshot (`StoreBackup.write`): receipts, quarantine,
///    the deletion ledger and the audit;
/// 4. **the column store**, from its manifest (copied again when a merge retired a listed chunk;
///    the dictionaries up to the lengths that manifest records).
///
/// A seal between step 1 and step 4 leaves segments in the copy that the copied manifest's
/// `sealed_through_segment` already covers: on open the sealer skips their rows and records their
/// receipts and ids again, idempotently by segment number, as after a crash between a publish and a
/// segment's removal. A deletion that ran meanwhile sealed first, so its rows are not in any later
/// segment.
public enum SegmentStoreBackup {
    /// The store's name inside a backup directory.
    public static let storeName = "store.sqlite"

    /// How often a part is copied again because the store's seals removed a file it listed.
    static let attempts = 50

    /// Whether `path` is a segment store's backup: a directory holding a segment store.
    public static func isBackup(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
            && FileManager.default.fileExists(atPath: SegmentEventStore.segmentsDirectory(forDatabase: path + "/" + storeName))
    }

    /// Writes a backup of the segment store at `database` to the directory `destination`, built
    /// beside it and renamed into place (an older backup there is replaced only once the new one
    /// is complete; a crash leaves the older one, or a `.partial-PID` directory to remove).
    /// Returns the events and bytes it holds (events counted from the copied manifest and segments).
    public static func write(database: String, to destination: String) throws -> StoreBackup.Written {
        guard FileManager.default.fileExists(atPath: database) else { throw StoreBackupError(.ioFailed, "no store at \(database)") }
        let partial = destination + ".partial-\(getpid())"
        try? FileManager.default.removeItem(atPath: partial)
        var written: StoreBackup.Written
        do {
            try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            let copy = partial + "/" + storeName
            try copySegments(from: SegmentEventStore.segmentsDirectory(forDatabase: database), to: SegmentEventStore.segmentsDirectory(forDatabase: copy))
            try copyIDRuns(from: SegmentEventStore.idsDirectory(forDatabase: database), to: SegmentEventStore.idsDirectory(forDatabase: copy))
            written = try StoreBackup.write(database: database, to: copy)
            let sealedEvents = try copyColumns(from: ColumnStore.directory(forDatabase: database), to: ColumnStore.directory(forDatabase: copy))
            written.events = Int64(sealedEvents) + Int64(try unsealedEvents(in: SegmentEventStore.segmentsDirectory(forDatabase: copy), after: copy))
            written.bytes = Int64(bytes(under: partial))
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        var old: String?
        if FileManager.default.fileExists(atPath: destination) {
            old = destination + ".old-\(getpid())"
            guard rename(destination, old!) == 0 else { throw StoreBackupError(.ioFailed, "cannot move the older backup at \(destination) aside") }
        }
        guard rename(partial, destination) == 0 else { throw StoreBackupError(.ioFailed, "cannot rename the backup into \(destination)") }
        try StoreBackup.sync((destination as NSString).deletingLastPathComponent)
        if let old { try? FileManager.default.removeItem(atPath: old) }
        return written
    }

    /// Copies the backup directory `backup` to a store at `staging` (what was there is removed
    /// first): the SQLite file checked (`StoreBackup.stage`) and the three directories. The caller
    /// opens it as a ``SegmentEventStore`` (recovery and the replay of the segments) before use.
    public static func stage(backup: String, at staging: String) throws {
        removeStore(staging)
        let source = backup + "/" + storeName
        do {
            try StoreBackup.stage(backup: source, at: staging)
            for directory in directories {
                try copyTree(directory(source), to: directory(staging))
            }
        } catch {
            removeStore(staging)
            throw error
        }
    }

    /// A segment store's three directories beside its SQLite file, by the file's path.
    public static let directories: [@Sendable (String) -> String] = [
        { SegmentEventStore.segmentsDirectory(forDatabase: $0) }, { SegmentEventStore.idsDirectory(forDatabase: $0) },
        { ColumnStore.directory(forDatabase: $0) },
    ]

    /// Removes a segment store: its SQLite files and its three directories.
    public static func removeStore(_ path: String) {
        StoreBackup.removeDatabaseFiles(path)
        for directory in directories { try? FileManager.default.removeItem(atPath: directory(path)) }
        unlink(path + ".columns.lock")
    }

    // MARK: The parts

    /// Step 1: every segment file there is, each as long as it is now; one removed meanwhile is skipped.
    static func copySegments(from source: String, to destination: String) throws {
        try makeDirectory(destination)
        for name in SegmentLog.list(source).sorted() where SegmentLayout.sequence(fileName: name) != nil {
            _ = try copyFile(source + "/" + name, to: destination + "/" + name, length: nil, skipMissing: true)
        }
        try StoreBackup.sync(destination)
    }

    /// Step 2: the runs' manifest, then each run it lists.
    static func copyIDRuns(from source: String, to destination: String) throws {
        try makeDirectory(destination)
        let manifest = EventIDIndex.manifestName
        for _ in 0..<attempts {
            guard try copyFile(source + "/" + manifest, to: destination + "/" + manifest, length: nil, skipMissing: true) else { return }
            let runs = try EventIDIndex.readManifest(destination + "/" + manifest)
            if try copyAll(runs.map { (source + "/" + $0.name, destination + "/" + $0.name, nil) }) {
                try StoreBackup.sync(destination)
                return
            }
            clear(destination)
        }
        throw StoreBackupError(.ioFailed, "the id runs kept changing while they were copied; try again")
    }

    /// Step 4: the column manifest's files, then the manifest; returns the events its chunks hold.
    static func copyColumns(from source: String, to destination: String) throws -> Int {
        try makeDirectory(destination)
        for _ in 0..<attempts {
            guard DurableFile.exists(source + "/" + ColumnManifest.fileName) else { return 0 }
            let bytes = try DurableFile.read(source + "/" + ColumnManifest.fileName, name: ColumnManifest.fileName)
            let manifest = try ColumnManifest.decode(bytes)
            var files = manifest.allChunks.map { ($0.file, Int?.none) }
            files += [(manifest.uuids.file, manifest.uuids.bytes), (manifest.strings.file, manifest.strings.bytes)]
            if try copyAll(files.map { (source + "/" + $0.0, destination + "/" + $0.0, $0.1) }) {
                try DurableFile.publish(bytes, to: destination + "/" + ColumnManifest.fileName, name: ColumnManifest.fileName)
                try StoreBackup.sync(destination)
                return manifest.chunks.reduce(0) { $0 + $1.rows }
            }
            clear(destination)
        }
        throw StoreBackupError(.ioFailed, "the column store kept changing while it was copied; try again")
    }

    /// The events in the copied segments that the copied manifest does not cover yet.
    static func unsealedEvents(in segments: String, after store: String) throws -> Int {
        let columns = ColumnStore.directory(forDatabase: store)
        let sealedThrough = DurableFile.exists(columns + "/" + ColumnManifest.fileName)
            ? try ColumnManifest.decode(DurableFile.read(columns + "/" + ColumnManifest.fileName, name: ColumnManifest.fileName)).sealedThroughSegment : 0
        var events = 0
        for name in SegmentLog.list(segments) {
            guard let sequence = SegmentLayout.sequence(fileName: name), sequence > sealedThrough else { continue }
            events += try SegmentLog.records(path: segments + "/" + name, name: name).reduce(0) { $0 + $1.rows.count }
        }
        return events
    }

    // MARK: Files

    /// Copies `source` (its first `length` bytes, or all) to `destination` and flushes it; false
    /// when `source` is gone and `skipMissing` (a seal removed it), with nothing written.
    static func copyFile(_ source: String, to destination: String, length: Int?, skipMissing: Bool) throws -> Bool {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            if errno == ENOENT, skipMissing { return false }
            throw StoreBackupError(.ioFailed, "cannot open \(source): \(String(cString: strerror(errno)))")
        }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw StoreBackupError(.ioFailed, "cannot create \(destination): \(String(cString: strerror(errno)))") }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var left = length ?? Int.max
        while left > 0 {
            let got = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, min($0.count, left)) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw StoreBackupError(.ioFailed, "cannot read \(source): \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            var done = 0
            while done < got {
                let wrote = buffer.withUnsafeBytes { writeBytes(output, $0.baseAddress! + done, got - done) }
                if wrote < 0, errno == EINTR { continue }
                guard wrote > 0 else { throw StoreBackupError(.ioFailed, "cannot write \(destination): \(String(cString: strerror(errno)))") }
                done += wrote
            }
            left -= got
        }
        if length != nil, left > 0 { throw StoreBackupError(.ioFailed, "\(source) is shorter than its manifest records") }
        guard fsync(output) == 0 else { throw StoreBackupError(.ioFailed, "cannot sync \(destination): \(String(cString: strerror(errno)))") }
        return true
    }

    /// Copies each (source, destination, length); false as soon as a source is gone (a seal or a
    /// merge removed it since its manifest was read), for the caller to start again.
    static func copyAll(_ files: [(source: String, destination: String, length: Int?)]) throws -> Bool {
        for file in files {
            guard try copyFile(file.source, to: file.destination, length: file.length, skipMissing: true) else { return false }
        }
        return true
    }

    /// Copies every file of the directory `source` (not its subdirectories) into `destination`.
    static func copyTree(_ source: String, to destination: String) throws {
        try makeDirectory(destination)
        for name in SegmentLog.list(source) {
            var directory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source + "/" + name, isDirectory: &directory), !directory.boolValue else { continue }
            _ = try copyFile(source + "/" + name, to: destination + "/" + name, length: nil, skipMissing: false)
        }
        try StoreBackup.sync(destination)
    }

    static func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw StoreBackupError(.ioFailed, "cannot create \(path): \(String(cString: strerror(errno)))") }
    }

    /// Removes the files of a directory being filled, to start its copy again.
    static func clear(_ path: String) {
        for name in SegmentLog.list(path) { unlink(path + "/" + name) }
    }

    /// The bytes of the files under `root` (a backup's size; the benchmarks' store sizes).
    public static func bytes(under root: String) -> Int {
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return 0 }
        var total = 0
        while let name = enumerator.nextObject() as? String {
            total += ((try? FileManager.default.attributesOfItem(atPath: root + "/" + name))?[.size] as? Int) ?? 0
        }
        return total
    }
}

/// POSIX `write` (the enum's own `write(database:to:)` hides the unqualified name).
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

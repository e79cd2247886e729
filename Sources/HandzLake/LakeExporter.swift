import Foundation
import HandzAnalyticsCore
import HandzCompression
import HandzSigning
import HandzStore

/// What one export did.
public struct LakeExportSummary: Sendable, Equatable {
    /// Partitions whose data file was (re)written.
    public var written = 0
    /// Partitions whose content was already on disk, byte for byte (left untouched).
    public var unchanged = 0
    /// Partitions in the range that no longer hold any event (purged) and were deleted.
    public var removed = 0
    public var rows = 0
    /// Bytes of NDJSON before compression, and of the gzip files.
    public var uncompressedBytes = 0
    public var compressedBytes = 0
}

/// Writes the events a store received in a range of hours to the event lake
/// (`handz-analytics export lake`, and `serve --lake` on a schedule).
///
/// - One partition per UTC hour of receive time (``LakePartition``): `part-00000.ndjson.gz` and
///   `_manifest.json` (rows, bytes, SHA-256).
/// - **Idempotent:** the range is widened to whole hours; each partition is rebuilt from the
///   store in (received_time_ms, event_id) order, so the same events give the same bytes; an
///   unchanged partition is not touched, a changed one (forget-user, purge) is replaced, and a
///   partition whose events were all purged is deleted.
/// - **Atomic per partition:** the data file is written under a temporary name (hidden from
///   every reader: dot prefix, other suffix), flushed to disk and renamed; the manifest follows
///   the same way. A reader sees the old partition or the new one, never half of one.
/// - Constant memory: rows stream from the store through gzip into the file.
public struct LakeExporter: Sendable {
    public let root: URL
    public let compressionLevel: Int32

    public init(root: URL, compressionLevel: Int32 = 6) {
        self.root = root
        self.compressionLevel = compressionLevel
    }

    public func export(from store: any EventStore, receivedFromMs: Int64, toMs: Int64) async throws -> LakeExportSummary {
        // One writer at a time per lake, across processes too: the scheduled export of `serve
        // --lake` must not rename a partition it read before a deletion over the one the deletion
        // worker just rewrote (issue 14).
        let lock = try await LakeWriteLock.acquire(root)
        defer { lock.release() }
        return try await exportLocked(from: store, receivedFromMs: receivedFromMs, toMs: toMs)
    }

    func exportLocked(from store: any EventStore, receivedFromMs: Int64, toMs: Int64) async throws -> LakeExportSummary {
        let fromMs = LakePartition.floorHour(receivedFromMs)
        let endMs = LakePartition.floorHour(toMs) == toMs ? toMs : LakePartition.floorHour(toMs) + LakePartition.hourMs
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let writer = PartitionWriter(root: root, level: compressionLevel)
        do {
            try await store.exportEvents(receivedFromMs: fromMs, toMs: endMs) { event in
                try writer.append(event)
            }
            try writer.finishPartition()
        } catch {
            writer.abandon()  // no half-written temporary file stays behind for the next tick
            throw error
        }
        var summary = writer.summary
        for partition in try existingPartitions() where partition.startMs >= fromMs && partition.startMs < endMs && !writer.touched.contains(partition) {
            try FileManager.default.removeItem(at: root.appendingPathComponent(partition.path))
            summary.removed += 1
        }
        return summary
    }

    /// The partitions on disk: `dt=YYYY-MM-DD/hour=HH` directories with a manifest.
    public func existingPartitions() throws -> [LakePartition] {
        let manager = FileManager.default
        guard let days = try? manager.contentsOfDirectory(atPath: root.path) else { return [] }
        var found: [LakePartition] = []
        for day in days where day.hasPrefix("dt=") {
            let hours = (try? manager.contentsOfDirectory(atPath: root.appendingPathComponent(day).path)) ?? []
            for hour in hours where hour.hasPrefix("hour=") {
                guard let start = Self.parse(day: String(day.dropFirst(3)), hour: String(hour.dropFirst(5))) else { continue }
                let partition = LakePartition(containing: start)
                if partition.path == "\(day)/\(hour)" { found.append(partition) }
            }
        }
        return found.sorted()
    }

    /// Epoch ms of `YYYY-MM-DD` + `HH` (UTC), or nil.
    static func parse(day: String, hour: String) -> Int64? {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]),
              let hourValue = Int(hour), (0..<24).contains(hourValue) else { return nil }
        let days = TimestampFormat.daysFromCivil(year: parts[0], month: parts[1], day: parts[2])
        return Int64(days) * 86_400_000 + Int64(hourValue) * LakePartition.hourMs
    }
}

/// Streams rows into the current partition's temporary file. The store calls `append` from one
/// task, in order, so the state needs no lock (hence `@unchecked Sendable`).
final class PartitionWriter: @unchecked Sendable {
    let root: URL
    let level: Int32
    var summary = LakeExportSummary()
    var touched: Set<LakePartition> = []

    private var partition: LakePartition?
    private var handle: FileHandle?
    private var temporary: URL?
    private var gzip: GzipStream?
    private var hash = SHA256Stream()
    private var rows = 0
    private var bytes = 0

    init(root: URL, level: Int32) {
        self.root = root
        self.level = level
    }

    func append(_ event: ExportedEvent) throws {
        let target = LakePartition(containing: event.receivedTimeMs)
        if target != partition {
            try finishPartition()
            try start(target)
        }
        let line = Array(LakeRow.line(event).utf8)
        summary.uncompressedBytes += line.count
        rows += 1
        try gzip?.write(line)
    }

    private func start(_ target: LakePartition) throws {
        let directory = root.appendingPathComponent(target.path)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(".\(LakePartition.dataFile).tmp-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw LakeError.cannotWrite(target.path) }
        let handle = try FileHandle(forWritingTo: file)
        (partition, self.handle, temporary, hash, rows, bytes) = (target, handle, file, SHA256Stream(), 0, 0)
        gzip = GzipStream(level: level) { [unowned self] chunk in
            try handle.write(contentsOf: chunk)
            hash.update(chunk)
            bytes += chunk.count
        }
    }

    /// Drops the partition being written (its temporary file); what is in place stays.
    func abandon() {
        try? handle?.close()
        if let temporary { try? FileManager.default.removeItem(at: temporary) }
        (partition, handle, temporary, gzip) = (nil, nil, nil, nil)
    }

    /// Closes the current partition: unchanged → discarded; changed → renamed into place.
    func finishPartition() throws {
        guard let partition, let handle, let temporary, let gzip else { return }
        defer { (self.partition, self.handle, self.temporary, self.gzip) = (nil, nil, nil, nil) }
        try gzip.finish()
        try handle.synchronize()
        try handle.close()
        touched.insert(partition)
        summary.rows += rows
        summary.compressedBytes += bytes
        let directory = root.appendingPathComponent(partition.path)
        let manifest = LakeManifest(partition: partition.path, receivedFromMs: partition.startMs, receivedToMs: partition.endMs,
                                    rows: rows, bytes: bytes, sha256: hash.hex())
        let manifestURL = directory.appendingPathComponent(LakePartition.manifestFile)
        let dataURL = directory.appendingPathComponent(LakePartition.dataFile)
        if let existing = FileManager.default.contents(atPath: manifestURL.path), existing == Data(manifest.json.utf8),
           FileManager.default.fileExists(atPath: dataURL.path) {
            try FileManager.default.removeItem(at: temporary)
            summary.unchanged += 1
            return
        }
        guard rename(temporary.path, dataURL.path) == 0 else { throw LakeError.cannotWrite(partition.path) }
        let manifestTemporary = directory.appendingPathComponent(".\(LakePartition.manifestFile).tmp-\(UUID().uuidString)")
        try Data(manifest.json.utf8).write(to: manifestTemporary, options: .atomic)
        guard rename(manifestTemporary.path, manifestURL.path) == 0 else { throw LakeError.cannotWrite(partition.path) }
        summary.written += 1
    }
}

/// Why an export failed; names the partition, never an event value.
public enum LakeError: Error, CustomStringConvertible, Equatable {
    case cannotWrite(String)

    public var description: String {
        switch self {
        case .cannotWrite(let partition): "lake_write_failed: cannot write partition \(partition)"
        }
    }
}

extension LakeExporter {
    /// Deletes every partition that ends at or before `cutoffMs` (retention, issue 14 §4). Each
    /// goes at once for readers: its directory is first renamed to a hidden name, then removed;
    /// a day directory left empty is removed too. Returns the partitions removed.
    public func removePartitions(endingBy cutoffMs: Int64) async throws -> Int {
        let lock = try await LakeWriteLock.acquire(root)
        defer { lock.release() }
        let manager = FileManager.default
        var removed = 0
        for partition in try existingPartitions() where partition.endMs <= cutoffMs {
            let directory = root.appendingPathComponent(partition.path)
            let hidden = directory.deletingLastPathComponent().appendingPathComponent(".removing-\(directory.lastPathComponent)-\(UUID().uuidString)")
            guard rename(directory.path, hidden.path) == 0 else { throw LakeError.cannotWrite(partition.path) }
            try manager.removeItem(at: hidden)
            removed += 1
            let day = directory.deletingLastPathComponent()
            if let left = try? manager.contentsOfDirectory(atPath: day.path), left.isEmpty { try? manager.removeItem(at: day) }
        }
        return removed
    }
}

/// An exclusive `flock` on `.lake.lock` in the lake's root, held while partitions are written or
/// removed. Waits by polling (every 50 ms) so no thread blocks; released on close, and by the
/// kernel if the process dies.
struct LakeWriteLock {
    let descriptor: Int32

    static func acquire(_ root: URL) async throws -> LakeWriteLock {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let descriptor = open(root.appendingPathComponent(".lake.lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw LakeError.cannotWrite(".lake.lock") }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                close(descriptor)
                throw error
            }
        }
        return LakeWriteLock(descriptor: descriptor)
    }

    func release() { close(descriptor) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The directory of segment files (``SegmentLayout``) and the one open for appending. Not
/// thread-safe: its owner (``SegmentWriter``'s thread, or a bulk import) calls it from one thread.
///
/// Opening recovers: every segment is scanned, a torn tail (``SegmentScan/Ending/tornTail(offset:)``)
/// is cut back to the last whole frame with a log line naming the file and the offset, and damage
/// before a whole frame is refused (``SegmentLogError/Code/corruptSegment``), since cutting it would
/// drop acknowledged events. A segment shorter than its header (a crash while it was created, before
/// anything was acknowledged in it) is removed.
public final class SegmentLog {
    public struct Segment: Sendable, Equatable {
        public var sequence: UInt64
        /// Bytes through its last whole frame.
        public var bytes: Int
        public var fileName: String { SegmentLayout.fileName(sequence: sequence) }
    }

    public let directory: String
    /// Bytes after which the open segment is closed and the next one started.
    public let segmentBytes: Int
    /// Every segment, oldest first; the last is the one open for appending.
    public private(set) var segments: [Segment] = []
    private var descriptor: Int32 = -1
    /// The exclusive `flock` on `LOCK` in the directory, held until ``close()``: one writer.
    private var lockDescriptor: Int32
    /// A write failed after part of it may have reached the file: cut back before the next one.
    private var needsCut = false

    /// Opens (creating when missing) the log in `directory`, recovering what a crash left.
    /// - Parameters:
    ///   - directory: the log's directory (`PATH.segments`).
    ///   - segmentBytes: the size past which the open segment is closed and the next started.
    ///   - log: gets one line per repair (file and offset; never a value).
    public init(directory: String, segmentBytes: Int = SegmentLayout.defaultSegmentBytes, log: (String) -> Void = { _ in }) throws(SegmentLogError) {
        self.directory = directory
        self.segmentBytes = segmentBytes
        guard mkdir(directory, 0o755) == 0 || errno == EEXIST else { throw Self.error(".", "cannot create the directory") }
        lockDescriptor = open(directory + "/LOCK", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockDescriptor >= 0 else { throw Self.error("LOCK", "cannot open") }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            closeFile(lockDescriptor)
            throw SegmentLogError(.busy, file: "LOCK", reason: "another process writes this segment log (a running serve?)")
        }
        let names = Self.list(directory).compactMap { name in SegmentLayout.sequence(fileName: name).map { (name, $0) } }.sorted { $0.1 < $1.1 }
        for (name, sequence) in names {
            let path = directory + "/" + name
            let bytes = try Self.read(path, name: name)
            if bytes.count < SegmentLayout.headerBytes {
                unlink(path)
                log("segment \(name): \(bytes.count) bytes, shorter than a segment's header (a crash while it was created); removed")
                continue
            }
            let scan: SegmentScan
            do {
                scan = try bytes.withFormatBytes { buffer throws(ChunkFormatError) in try SegmentScan(buffer) }
            } catch {
                throw SegmentLogError(.corruptSegment, file: name, reason: "its header: " + error.reason)
            }
            guard scan.sequence == sequence else { throw SegmentLogError(.corruptSegment, file: name, reason: "its header names another sequence number") }
            switch scan.ending {
            case .clean: break
            case .tornTail(let offset):
                try Self.cut(path, name: name, at: offset)
                log("segment \(name): torn tail at offset \(offset) (\(bytes.count - offset) bytes after the last whole frame, \(scan.frames.count) whole frames kept); cut")
            case .damagedMiddle(let offset):
                throw SegmentLogError(.corruptSegment, file: name, reason: "damaged at offset \(offset), before whole frames: not cut, since events after it were acknowledged")
            }
            segments.append(Segment(sequence: sequence, bytes: scan.validLength))
        }
        try openNext()
    }

    deinit { close() }

    /// Closes the open segment and releases the lock (another process may then open the log).
    /// Later appends fail.
    public func close() {
        if descriptor >= 0 { closeFile(descriptor) }
        if lockDescriptor >= 0 { closeFile(lockDescriptor) }
        (descriptor, lockDescriptor) = (-1, -1)
    }

    /// The segment being appended to.
    public var openSegment: Segment { segments[segments.count - 1] }

    /// Whether a segment is open for appending (false only after a roll could not start the next).
    public var isOpen: Bool { descriptor >= 0 }

    /// Appends `frames` (whole frames, `SegmentLayout.appendFrame(_:to:)`) to the open segment
    /// with one `write` and makes them durable with one `fdatasync`. On failure nothing of them
    /// counts: the file is cut back to where it ended before, now or before the next write.
    public func append(_ frames: [UInt8]) throws(SegmentLogError) {
        guard !frames.isEmpty else { return }
        guard lockDescriptor >= 0 else { throw SegmentLogError(.ioFailed, file: ".", reason: "the log is closed") }
        if descriptor < 0 { try openNext() }
        let name = openSegment.fileName
        let offset = openSegment.bytes
        if needsCut {
            guard ftruncate(descriptor, off_t(offset)) == 0 else { throw Self.error(name, "cannot cut a failed write back") }
            needsCut = false
        }
        var done = 0
        while done < frames.count {
            let wrote = frames.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, frames.count - done, off_t(offset + done)) }
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else {
                let failure = Self.error(name, "write failed")
                needsCut = true
                _ = ftruncate(descriptor, off_t(offset))
                throw failure
            }
            done += wrote
        }
        guard fdatasync(descriptor) == 0 else {
            let failure = Self.error(name, "fdatasync failed")
            needsCut = true
            _ = ftruncate(descriptor, off_t(offset))
            throw failure
        }
        segments[segments.count - 1].bytes = offset + frames.count
    }

    /// Whether the open segment is full (the writer then calls ``roll()``).
    public var openSegmentIsFull: Bool { descriptor >= 0 && openSegment.bytes >= segmentBytes }

    /// Closes the open segment and starts the next; returns the sequence number closed. A
    /// segment with no frame is left open (there is nothing to seal in it).
    @discardableResult
    public func roll() throws(SegmentLogError) -> UInt64? {
        guard descriptor >= 0 else {
            try openNext()
            return segments.count > 1 ? segments[segments.count - 2].sequence : nil
        }
        guard openSegment.bytes > SegmentLayout.headerBytes else { return segments.count > 1 ? segments[segments.count - 2].sequence : nil }
        let closed = openSegment.sequence
        closeFile(descriptor)
        descriptor = -1
        try openNext()
        return closed
    }

    /// The closed segments (every one but the open one), oldest first.
    public var closedSegments: [Segment] { descriptor >= 0 ? Array(segments.dropLast()) : segments }

    /// The records of segment `sequence`, in order, read from its file up to its last whole frame.
    public func records(of segment: Segment) throws(SegmentLogError) -> [BatchRecord] {
        try Self.records(path: directory + "/" + segment.fileName, name: segment.fileName, length: segment.bytes)
    }

    /// Removes the closed segments up to and including `sequence` (sealed into the column store),
    /// then flushes the directory.
    public func remove(through sequence: UInt64) throws(SegmentLogError) {
        try Self.removeFiles(forget(through: sequence), in: directory)
    }

    /// Drops the closed segments up to and including `sequence` from the log's list and returns
    /// their paths, for ``removeFiles(_:in:)``. The writer's thread only does this part: unlinking a
    /// large file and flushing the directory can take tens of milliseconds on a busy disk, and
    /// every request waits for that thread (BENCHMARKS.md, "A day's retention while ingesting").
    /// A file left by a crash before its removal is sealed already: the next seal removes it.
    public func forget(through sequence: UInt64) -> [String] {
        let gone = closedSegments.filter { $0.sequence <= sequence }
        let goneSequences = Set(gone.map(\.sequence))
        segments.removeAll { goneSequences.contains($0.sequence) }
        return gone.map { directory + "/" + $0.fileName }
    }

    /// Unlinks `paths` (segments ``forget(through:)`` dropped), then flushes `directory`.
    public static func removeFiles(_ paths: [String], in directory: String) throws(SegmentLogError) {
        guard !paths.isEmpty else { return }
        for path in paths { unlink(path) }
        try syncDirectory(directory)
    }

    /// The records of the segment file at `path`, through `length` bytes (all when nil). Read-only:
    /// a reader beside the writer sees the frames flushed so far.
    public static func records(path: String, name: String, length: Int? = nil) throws(SegmentLogError) -> [BatchRecord] {
        var bytes = try read(path, name: name)
        if let length, bytes.count > length { bytes.removeLast(bytes.count - length) }
        do {
            return try bytes.withFormatBytes { buffer throws(ChunkFormatError) in
                let scan = try SegmentScan(buffer)
                return try scan.frames.map { frame throws(ChunkFormatError) in try BatchRecord(decoding: UnsafeRawBufferPointer(rebasing: buffer[frame])) }
            }
        } catch {
            throw SegmentLogError(.corruptSegment, file: name, reason: error.reason)
        }
    }

    // MARK: Files

    private func openNext() throws(SegmentLogError) {
        let sequence = (segments.last?.sequence ?? 0) + 1
        let name = SegmentLayout.fileName(sequence: sequence)
        let path = directory + "/" + name
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.error(name, "cannot create") }
        let header = SegmentLayout.header(sequence: sequence)
        let wrote = header.withUnsafeBytes { pwrite(fd, $0.baseAddress!, header.count, 0) }
        guard wrote == header.count, fsync(fd) == 0 else {
            let failure = Self.error(name, "cannot write its header")
            closeFile(fd)
            unlink(path)
            throw failure
        }
        descriptor = fd
        segments.append(Segment(sequence: sequence, bytes: header.count))
        try syncDirectory()
    }

    private func syncDirectory() throws(SegmentLogError) { try Self.syncDirectory(directory) }

    private static func syncDirectory(_ directory: String) throws(SegmentLogError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.error(".", "cannot open the directory") }
        defer { closeFile(fd) }
        guard fsync(fd) == 0 else { throw Self.error(".", "cannot flush the directory") }
    }

    private static func cut(_ path: String, name: String, at offset: Int) throws(SegmentLogError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw error(name, "cannot open to cut its tail") }
        defer { closeFile(fd) }
        guard ftruncate(fd, off_t(offset)) == 0, fsync(fd) == 0 else { throw error(name, "cannot cut its tail") }
    }

    static func read(_ path: String, name: String) throws(SegmentLogError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw error(name, "cannot open") }
        defer { closeFile(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw error(name, "cannot stat") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw error(name, "read failed") }
            if got == 0 { bytes.removeLast(bytes.count - done); break }
            done += got
        }
        return bytes
    }

    static func list(_ path: String) -> [String] { DurableFile.list(path) }

    /// The error for the current `errno`: a full disk or quota is its own code (retry later).
    static func error(_ name: String, _ what: String) -> SegmentLogError {
        let code = errno
        let reason = what + ": " + String(cString: strerror(code))
        return SegmentLogError(code == ENOSPC || code == EDQUOT ? .diskFull : .ioFailed, file: name, reason: reason)
    }

}

/// `close(2)`, outside ``SegmentLog``, whose own `close()` shadows it.
private func closeFile(_ descriptor: Int32) { _ = close(descriptor) }

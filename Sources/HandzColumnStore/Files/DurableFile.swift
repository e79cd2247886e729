#if canImport(Glibc)
import CWriteBehind
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations the column store needs, each checked, with the durability
/// steps of publishing: a file is written whole and flushed (`fsync`) before it is renamed into
/// place, and its directory is flushed after the rename, so a crash leaves either the old file
/// or the new one, never a torn one (the LevelDB and ClickHouse way).
enum DurableFile {
    static func read(_ path: String, name: String) throws(ColumnStoreError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ColumnStoreError(errno == ENOENT ? .missingFile : .ioFailed, file: name, reason: systemError())
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw ColumnStoreError(.ioFailed, file: name, reason: systemError()) }
        let size = Int(status.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw ColumnStoreError(.ioFailed, file: name, reason: got == 0 ? "the file shrank while read" : systemError()) }
            done += got
        }
        return bytes
    }

    /// The first `length` bytes of the file (a dictionary up to what the manifest counts).
    static func readPrefix(_ path: String, name: String, length: Int) throws(ColumnStoreError) -> [UInt8] {
        let bytes = try read(path, name: name)
        guard bytes.count >= length else { throw ColumnStoreError(.corruptFile, file: name, reason: "shorter than the manifest records") }
        return Array(bytes.prefix(length))
    }

    /// Writes `bytes` to `path` through a temporary name: write, fsync, rename, fsync directory.
    static func publish(_ bytes: [UInt8], to path: String, name: String) throws(ColumnStoreError) {
        let temporary = path + ".tmp"
        try write(bytes, to: temporary, name: name, truncateAt: 0)
        guard rename(temporary, path) == 0 else { throw ColumnStoreError(.ioFailed, file: name, reason: systemError()) }
        try syncDirectory(of: path, name: name)
    }

    /// Cuts the file to `offset` (anything a crashed writer left after it), appends `bytes` and
    /// flushes. Creates the file when missing.
    static func append(_ bytes: [UInt8], to path: String, name: String, at offset: Int) throws(ColumnStoreError) {
        try write(bytes, to: path, name: name, truncateAt: offset)
    }

    private static func write(_ bytes: [UInt8], to path: String, name: String, truncateAt offset: Int) throws(ColumnStoreError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ColumnStoreError(.ioFailed, file: name, reason: systemError()) }
        defer { close(fd) }
        guard ftruncate(fd, off_t(offset)) == 0 else { throw ColumnStoreError(.ioFailed, file: name, reason: systemError()) }
        var done = 0
        var flushed = 0
        while done < bytes.count {
            let piece = min(bytes.count - done, bytesPerSync)
            let wrote = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, piece, off_t(offset + done)) }
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { throw ColumnStoreError(.ioFailed, file: name, reason: systemError()) }
            done += wrote
            if done - flushed >= bytesPerSync {
                writeBehind(fd, from: offset + flushed, length: done - flushed)
                flushed = done
            }
        }
        guard fsync(fd) == 0 else { throw ColumnStoreError(.ioFailed, file: name, reason: systemError()) }
    }

    /// Large files are flushed while they are written, a piece of this size at a time (RocksDB's
    /// `bytes_per_sync`): a seal's merge, a retention's rewrite or a dictionary written whole would
    /// otherwise leave hundreds of megabytes dirty for one `fsync`, and the device's queue, full of
    /// them, holds up the segment log's `fdatasync` that every waiting request needs (issue 34,
    /// "no request waits more than 100 ms"; BENCHMARKS.md, "A day's retention while ingesting").
    static let bytesPerSync = 1 << 20

    /// Starts writing `length` bytes from `start` to the device, after waiting for the piece
    /// before them: at most two pieces of this file are in flight at once.
    private static func writeBehind(_ fd: Int32, from start: Int, length: Int) {
        #if os(Linux)
        // Advice only: a failure leaves the pages to the closing fsync, which reports it.
        if start >= bytesPerSync { _ = handz_write_behind(fd, Int64(start - bytesPerSync), Int64(bytesPerSync), 1) }
        _ = handz_write_behind(fd, Int64(start), Int64(length), 0)
        #endif
    }

    static func syncDirectory(of path: String, name: String) throws(ColumnStoreError) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ColumnStoreError(.ioFailed, file: name, reason: systemError()) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw ColumnStoreError(.ioFailed, file: name, reason: systemError()) }
    }

    static func makeDirectory(_ path: String) throws(ColumnStoreError) {
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw ColumnStoreError(.ioFailed, file: ".", reason: systemError()) }
    }

    static func remove(_ path: String) { unlink(path) }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The names in a directory (no `.` or `..`).
    static func list(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func systemError() -> String { String(cString: strerror(errno)) }
}

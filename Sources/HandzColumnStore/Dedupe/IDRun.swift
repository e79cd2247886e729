#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HandzAnalyticsCore

/// One immutable file of event ids, sorted and unique: the ids of the segments one seal turned
/// into chunks (or of runs merged together), which ``EventIDIndex`` keeps so that dedupe stays
/// exact after the segments are gone, without a B-tree insert per event (issue 34 §2).
///
/// ```
/// magic    8 bytes "HZIDRN" 0x00 then the format version (1)
/// ids      16 bytes each, big-endian words, ascending
/// footer   u64 count, u32 CRC-32 of the ids
/// ```
/// In memory a run keeps every 256th id (a sparse index, 1/16 of a byte per id) and, while the
/// index's memory budget allows, an ``IDFilter``; a lookup that passes the filter reads one block
/// of at most 256 ids (4 KiB) with `pread` and searches it. Without a filter every lookup reads a
/// block: slower, still exact.
final class IDRun: @unchecked Sendable {
    static let magic: [UInt8] = Array("HZIDRN".utf8) + [0, 1]
    static let blockIDs = 256
    static let footerBytes = 12

    let name: String
    let count: Int
    /// The ids' receive times: a run whose newest is older than retention's cutoff goes whole.
    let minReceivedMs: Int64
    let maxReceivedMs: Int64
    let bytes: Int
    private let descriptor: Int32
    /// Every ``blockIDs``th id, from the first.
    private let sparse: [UUIDWords]
    private let lowest: UUIDWords
    private let highest: UUIDWords
    private(set) var filter: IDFilter?

    /// Writes `ids` (sorted, unique) to `path` and flushes it; the caller publishes it.
    static func write(_ ids: [UUIDWords], to path: String, name: String) throws(SegmentLogError) {
        var bytes = magic
        bytes.reserveCapacity(magic.count + ids.count * 16 + footerBytes)
        for id in ids {
            withUnsafeBytes(of: id.high.bigEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: id.low.bigEndian) { bytes.append(contentsOf: $0) }
        }
        let checksum = bytes.withUnsafeBytes { BlockCompression.checksum(UnsafeRawBufferPointer(rebasing: $0[magic.count...])) }
        var footer = ByteWriter(capacity: footerBytes)
        footer.uint64(UInt64(ids.count))
        footer.uint32(checksum)
        bytes += footer.bytes
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SegmentLog.error(name, "cannot create") }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let wrote = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(done)) }
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { throw SegmentLog.error(name, "write failed") }
            done += wrote
        }
        guard fsync(fd) == 0 else { throw SegmentLog.error(name, "fsync failed") }
    }

    /// Opens the run at `path`, checking its checksum, and builds its sparse index and (when
    /// `withFilter`) its filter from one sequential read.
    init(path: String, name: String, minReceivedMs: Int64, maxReceivedMs: Int64, withFilter: Bool) throws(SegmentLogError) {
        let bytes = try SegmentLog.read(path, name: name)
        let payload = bytes.count - Self.magic.count - Self.footerBytes
        guard payload >= 0, payload % 16 == 0, bytes.starts(with: Self.magic) else {
            throw SegmentLogError(.corruptSegment, file: name, reason: "not an id run of this format")
        }
        let count = payload / 16
        var footer = bytes.withUnsafeBytes { ByteReader($0, at: bytes.count - Self.footerBytes) }
        guard let stored = try? footer.uint64(), let checksum = try? footer.uint32(), stored == UInt64(count),
              checksum == bytes.withUnsafeBytes({ BlockCompression.checksum(UnsafeRawBufferPointer(rebasing: $0[Self.magic.count..<(Self.magic.count + payload)])) })
        else { throw SegmentLogError(.corruptSegment, file: name, reason: "its count or checksum does not match its ids") }
        var sparse: [UUIDWords] = []
        sparse.reserveCapacity(count / Self.blockIDs + 1)
        var filter = withFilter ? IDFilter(capacity: count) : nil
        var lowest = UUIDWords(high: .max, low: .max), highest = UUIDWords(high: 0, low: 0)
        bytes.withUnsafeBytes { buffer in
            for index in 0..<count {
                let id = UUIDWords(orderingBytes: UnsafeRawBufferPointer(rebasing: buffer[(Self.magic.count + index * 16)...]))
                if index % Self.blockIDs == 0 { sparse.append(id) }
                filter?.insert(id)
                if index == 0 { lowest = id }
                if index == count - 1 { highest = id }
            }
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SegmentLog.error(name, "cannot open") }
        self.name = name
        self.count = count
        self.minReceivedMs = minReceivedMs
        self.maxReceivedMs = maxReceivedMs
        self.bytes = bytes.count
        self.descriptor = fd
        self.sparse = sparse
        self.lowest = lowest
        self.highest = highest
        self.filter = filter
    }

    deinit { close(descriptor) }

    /// Whether the run holds `id`.
    func contains(_ id: UUIDWords) throws(SegmentLogError) -> Bool {
        guard count > 0, id >= lowest, id <= highest else { return false }
        if let filter, !filter.mayContain(id) { return false }
        // The last sparse entry not above the id starts the block that would hold it.
        var low = 0, high = sparse.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if sparse[middle] <= id { low = middle } else { high = middle }
        }
        let block = try readBlock(low)
        var lower = 0, upper = block.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if block[middle] < id { lower = middle + 1 } else { upper = middle }
        }
        return lower < block.count && block[lower] == id
    }

    /// Every id of the run, in order (a merge reads runs whole).
    func allIDs() throws(SegmentLogError) -> [UUIDWords] {
        var ids: [UUIDWords] = []
        ids.reserveCapacity(count)
        for block in 0..<sparse.count { ids += try readBlock(block) }
        return ids
    }

    private func readBlock(_ block: Int) throws(SegmentLogError) -> [UUIDWords] {
        let first = block * Self.blockIDs
        let ids = min(Self.blockIDs, count - first)
        var raw = [UInt8](repeating: 0, count: ids * 16)
        let offset = Self.magic.count + first * 16
        var done = 0
        while done < raw.count {
            let got = raw.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw SegmentLog.error(name, "read failed") }
            done += got
        }
        return raw.withUnsafeBytes { buffer in
            (0..<ids).map { UUIDWords(orderingBytes: UnsafeRawBufferPointer(rebasing: buffer[($0 * 16)...])) }
        }
    }
}

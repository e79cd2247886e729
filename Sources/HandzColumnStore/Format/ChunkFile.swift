import HandzAnalyticsCore

/// A chunk read from its bytes (``ChunkLayout``): the header is parsed and checked at once, each
/// column's block only when asked for (its checksum, then its decompression and decoding). Pure:
/// the file layer hands in the bytes. Every failure is a ``ChunkFormatError``, never a trap.
public struct ChunkFile: Sendable {
    public let eventName: String
    /// Days since 1970-01-01 (UTC) of every row's event time.
    public let day: Int64
    public let rows: Int
    public let minTimeMs: Int64
    public let maxTimeMs: Int64
    public let entries: [ChunkLayout.Entry]
    let bytes: [UInt8]
    /// The file's size in memory.
    var byteCount: Int { bytes.count }
    let dataStart: Int

    public init(bytes: [UInt8]) throws(ChunkFormatError) {
        self.bytes = bytes
        let (name, day, rows, minTime, maxTime, entries, dataStart) = try bytes.withFormatBytes { buffer throws(ChunkFormatError) in try Self.parseHeader(buffer) }
        (eventName, self.day, self.rows, minTimeMs, maxTimeMs, self.entries, self.dataStart) = (name, day, rows, minTime, maxTime, entries, dataStart)
    }

    static func parseHeader(_ buffer: UnsafeRawBufferPointer) throws(ChunkFormatError) -> (String, Int64, Int, Int64, Int64, [ChunkLayout.Entry], Int) {
        var reader = ByteReader(buffer)
        let magic = try reader.slice(ChunkLayout.magic.count)
        guard magic.prefix(7).elementsEqual(ChunkLayout.magic.prefix(7)) else { throw .notAChunk }
        guard Int(magic[7]) == ChunkLayout.version else { throw .unsupportedVersion(Int(magic[7])) }
        let headerLength = Int(try reader.uint32())
        let headerChecksum = try reader.uint32()
        let headerBytes = try reader.slice(headerLength)
        guard BlockCompression.checksum(headerBytes) == headerChecksum else { throw .checksumMismatch }
        let dataStart = reader.position
        let dataLength = buffer.count - dataStart

        var header = ByteReader(headerBytes)
        let name = try header.string()
        let day = try header.signed()
        let rows = try header.count(atMost: ChunkLayout.maxRows)
        let minTime = try header.signed()
        let maxTime = try header.signed()
        let columnCount = try header.count(atMost: ChunkLayout.maxColumns)
        var entries: [ChunkLayout.Entry] = []
        var names = Set<String>()
        for _ in 0..<columnCount {
            let columnName = try header.string()
            guard names.insert(columnName).inserted else { throw .malformed("a column named twice") }
            guard let type = ColumnType(rawValue: try header.byte()) else { throw .malformed("an unknown column type") }
            guard let encoding = BlockEncoding(rawValue: try header.byte()) else { throw .malformed("an unknown block encoding") }
            let offset = try header.count(atMost: dataLength)
            let stored = try header.count(atMost: dataLength - offset)
            let raw = try header.count(atMost: BlockCompression.maxRawBytes)
            let checksum = try header.uint32()
            guard Self.fits(encoding, type) else { throw .malformed("a column whose encoding does not fit its type") }
            entries.append(ChunkLayout.Entry(name: columnName, type: type, encoding: encoding, offset: offset, storedBytes: stored, rawBytes: raw, checksum: checksum))
        }
        guard header.remaining == 0 else { throw .malformed("bytes after the column directory") }
        return (name, day, rows, minTime, maxTime, entries, dataStart)
    }

    static func fits(_ encoding: BlockEncoding, _ type: ColumnType) -> Bool {
        switch type {
        case .uuid, .string: encoding == .varint || encoding == .delta
        case .integer: encoding == .varint
        case .boolean: encoding == .byte
        case .time: encoding == .delta
        case .eventID: encoding == .fixed16
        }
    }

    public func entry(_ name: String) -> ChunkLayout.Entry? { entries.first { $0.name == name } }

    /// The column's values, or nil when the chunk has no such column (no row carries it).
    public func column(_ name: String) throws(ChunkFormatError) -> ColumnValues? {
        guard let entry = entry(name) else { return nil }
        return try values(of: entry)
    }

    public func values(of entry: ChunkLayout.Entry) throws(ChunkFormatError) -> ColumnValues {
        let raw = try rawBlock(entry)
        return try raw.withFormatBytes { buffer throws(ChunkFormatError) in try BlockDecoder.decode(buffer, entry: entry, rows: rows) }
    }

    /// The block's bytes after its checksum is checked and it is decompressed.
    func rawBlock(_ entry: ChunkLayout.Entry) throws(ChunkFormatError) -> [UInt8] {
        try bytes.withFormatBytes { buffer throws(ChunkFormatError) in
            let start = dataStart + entry.offset
            guard start + entry.storedBytes <= buffer.count else { throw .truncated }
            let stored = UnsafeRawBufferPointer(rebasing: buffer[start..<(start + entry.storedBytes)])
            guard BlockCompression.checksum(stored) == entry.checksum else { throw .checksumMismatch }
            return try BlockCompression.decompress(stored, rawLength: entry.rawBytes)
        }
    }

    /// Every column, decoded (merging parts, rewriting a chunk).
    public func allColumns() throws(ChunkFormatError) -> [Column] {
        var columns: [Column] = []
        for entry in entries { columns.append(Column(name: entry.name, type: entry.type, values: try values(of: entry))) }
        return columns
    }
}

/// Decodes one block's raw bytes into `rows` values, bounds-checked.
enum BlockDecoder {
    static func decode(_ raw: UnsafeRawBufferPointer, entry: ChunkLayout.Entry, rows: Int) throws(ChunkFormatError) -> ColumnValues {
        switch entry.type {
        case .uuid, .string:
            let words = try varints(raw, rows: rows, delta: entry.encoding == .delta)
            var codes = [UInt32](repeating: 0, count: rows)
            for index in 0..<rows {
                guard let code = UInt32(exactly: words[index]) else { throw .malformed("a dictionary code beyond 32 bits") }
                codes[index] = code
            }
            return .codes(codes)
        case .integer:
            return .integers(try varints(raw, rows: rows, delta: false))
        case .boolean:
            guard raw.count == rows else { throw .malformed("a boolean block of the wrong size") }
            var codes = [UInt32](repeating: 0, count: rows)
            for index in 0..<rows {
                guard raw[index] <= 2 else { throw .malformed("a boolean cell that is not 0, 1 or 2") }
                codes[index] = UInt32(raw[index])
            }
            return .codes(codes)
        case .time:
            let words = try varints(raw, rows: rows, delta: true)
            return .times(words.map { Int64(bitPattern: $0) })
        case .eventID:
            guard raw.count == rows * 16 else { throw .malformed("an event-id block of the wrong size") }
            var ids = [UUIDWords](repeating: UUIDWords(high: 0, low: 0), count: rows)
            for index in 0..<rows {
                let base = index * 16
                var high: UInt64 = 0, low: UInt64 = 0
                for offset in 0..<8 { high = high << 8 | UInt64(raw[base + offset]) }
                for offset in 8..<16 { low = low << 8 | UInt64(raw[base + offset]) }
                ids[index] = UUIDWords(high: high, low: low)
            }
            return .ids(ids)
        }
    }

    /// `rows` varints; with `delta`, each a zigzag difference from the previous (wrapping, as
    /// written), returned as the running values' bit patterns. The block must end exactly there.
    static func varints(_ raw: UnsafeRawBufferPointer, rows: Int, delta: Bool) throws(ChunkFormatError) -> [UInt64] {
        var out = [UInt64](repeating: 0, count: rows)
        var position = 0
        var running: UInt64 = 0
        let count = raw.count
        for index in 0..<rows {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard position < count else { throw .truncated }
                let byte = raw[position]
                position += 1
                guard shift < 63 || (shift == 63 && byte <= 1) else { throw .malformed("a varint longer than 64 bits") }
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            if delta {
                running = running &+ UInt64(bitPattern: ZigZag.decode(value))
                out[index] = running
            } else {
                out[index] = value
            }
        }
        guard position == count else { throw .malformed("bytes after a block's last value") }
        return out
    }
}

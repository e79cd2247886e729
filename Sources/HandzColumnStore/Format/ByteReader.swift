/// Reads what ``ByteWriter`` wrote, every read bounds-checked: a truncated or damaged file ends
/// in ``ChunkFormatError``, never outside the buffer. Pure.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int

    init(_ bytes: UnsafeRawBufferPointer, at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { bytes.count - position }

    mutating func varint() throws(ChunkFormatError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw .truncated }
            let byte = bytes[position]
            position += 1
            // The tenth byte may carry only the 64th bit.
            guard shift < 63 || (shift == 63 && byte <= 1) else { throw .malformed("a varint longer than 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    mutating func signed() throws(ChunkFormatError) -> Int64 { ZigZag.decode(try varint()) }

    /// A varint that must fit `limit` (counts and lengths: nothing in a file may claim more).
    mutating func count(atMost limit: Int) throws(ChunkFormatError) -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw .malformed("a count of \(value) where at most \(limit) fits") }
        return Int(value)
    }

    mutating func uint32() throws(ChunkFormatError) -> UInt32 { try littleEndian() }

    mutating func uint64() throws(ChunkFormatError) -> UInt64 { try littleEndian() }

    /// A fixed-width little-endian integer (what ``ByteWriter`` writes for checksums and lengths).
    private mutating func littleEndian<T: FixedWidthInteger & UnsignedInteger>() throws(ChunkFormatError) -> T {
        let width = MemoryLayout<T>.size
        guard remaining >= width else { throw .truncated }
        var value: T = 0
        for offset in 0..<width { value |= T(bytes[position + offset]) << T(8 * offset) }
        position += width
        return value
    }

    mutating func byte() throws(ChunkFormatError) -> UInt8 {
        guard position < bytes.count else { throw .truncated }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next `count` bytes, in place.
    mutating func slice(_ count: Int) throws(ChunkFormatError) -> UnsafeRawBufferPointer {
        guard count >= 0, remaining >= count else { throw .truncated }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    /// A length-prefixed UTF-8 string (valid UTF-8 or refused).
    mutating func string(atMost limit: Int = 4096) throws(ChunkFormatError) -> String {
        let length = try count(atMost: limit)
        let utf8 = try slice(length)
        guard let text = String(validating: utf8, as: UTF8.self) else { throw .malformed("a name that is not UTF-8") }
        return text
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws ``ChunkFormatError``, keeping the error's type.
    func withFormatBytes<Result>(_ body: (UnsafeRawBufferPointer) throws(ChunkFormatError) -> Result) throws(ChunkFormatError) -> Result {
        var outcome: Swift.Result<Result, ChunkFormatError>?
        withUnsafeBytes { buffer in
            outcome = Swift.Result { () throws(ChunkFormatError) -> Result in try body(buffer) }
        }
        return try outcome!.get()
    }
}

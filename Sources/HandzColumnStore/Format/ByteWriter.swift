/// Appends the encodings every column-store file uses: LEB128 varints, zigzag for signed
/// values, little-endian fixed-width integers and length-prefixed UTF-8. Pure: bytes in memory.
struct ByteWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// LEB128: seven bits per byte, low bits first, the high bit set on every byte but the last.
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Zigzag then LEB128: small magnitudes of either sign take few bytes.
    mutating func signed(_ value: Int64) { varint(ZigZag.encode(value)) }

    mutating func uint32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func uint64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// A varint length, then the bytes.
    mutating func string(_ text: String) {
        let utf8 = Array(text.utf8)
        varint(UInt64(utf8.count))
        bytes += utf8
    }

    mutating func append(_ other: [UInt8]) { bytes += other }
}

/// Zigzag encoding (as in Protocol Buffers): 0, −1, 1, −2, … map to 0, 1, 2, 3, …
enum ZigZag {
    @inline(__always) static func encode(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    @inline(__always) static func decode(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }
}

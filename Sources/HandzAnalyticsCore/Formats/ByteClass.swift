/// ASCII byte classes for the format matchers.
@usableFromInline
enum ByteClass {
    @inlinable @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
    @inlinable @inline(__always) static func isLower(_ b: UInt8) -> Bool { b &- 0x61 < 26 }
    @inlinable @inline(__always) static func isUpper(_ b: UInt8) -> Bool { b &- 0x41 < 26 }
    @inlinable @inline(__always) static func isHex(_ b: UInt8) -> Bool {
        isDigit(b) || (b | 0x20) &- 0x61 < 6
    }
    /// Hex digit test by bitmap: bit `b & 63` of the word for `b >> 6`.
    @inlinable @inline(__always) static func isHexBitmap(_ b: UInt8) -> Bool {
        let word: UInt64 = b < 64 ? 0x03FF_0000_0000_0000 : (b < 128 ? 0x0000_007E_0000_007E : 0)
        return (word >> UInt64(b & 63)) & 1 == 1
    }
    @inlinable @inline(__always) static func at(_ p: UnsafeRawPointer, _ i: Int) -> UInt8 {
        p.load(fromByteOffset: i, as: UInt8.self)
    }
}

/// ASCII byte classes for the format matchers.
@usableFromInline
enum ByteClass {
    @inlinable @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
    @inlinable @inline(__always) static func isLower(_ b: UInt8) -> Bool { b &- 0x61 < 26 }
    @inlinable @inline(__always) static func isUpper(_ b: UInt8) -> Bool { b &- 0x41 < 26 }
    @inlinable @inline(__always) static func isHex(_ b: UInt8) -> Bool {
        isDigit(b) || (b | 0x20) &- 0x61 < 6
    }
    @inlinable @inline(__always) static func at(_ p: UnsafeRawPointer, _ i: Int) -> UInt8 {
        p.load(fromByteOffset: i, as: UInt8.self)
    }
}

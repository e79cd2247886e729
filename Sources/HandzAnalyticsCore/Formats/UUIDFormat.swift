/// RFC 9562 UUIDs in their 36-character text form, of the random versions only: 4 (random) or 7
/// (time-ordered, random below the millisecond), with the variant bits `10`. CH33 §1 and §3.1 make
/// every identifier a random UUID: versions 1 and 6 carry a MAC address, 3 and 5 are derived from a
/// name (`uuid5(email)` would put a hash of an email in the store), 8 is free-form. The check also
/// rejects the nil UUID and hand-made values such as `00000000-0000-0000-0000-005551234567`.
public enum UUIDFormat {
    @inlinable
    public static func matches(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        guard n == 36,
              ByteClass.at(p, 8) == UInt8(ascii: "-"), ByteClass.at(p, 13) == UInt8(ascii: "-"),
              ByteClass.at(p, 18) == UInt8(ascii: "-"), ByteClass.at(p, 23) == UInt8(ascii: "-"),
              ByteClass.at(p, 14) == UInt8(ascii: "4") || ByteClass.at(p, 14) == UInt8(ascii: "7")
        else { return false }
        let variant = ByteClass.at(p, 19) | 0x20
        guard variant == UInt8(ascii: "8") || variant == UInt8(ascii: "9") || variant == UInt8(ascii: "a") || variant == UInt8(ascii: "b") else { return false }
        // The 32 hex digits, eight at a time: five overlapping words, with the hyphen inside
        // two of them replaced by a digit before the test.
        let hyphenAt4: UInt64 = 0xFF << 32, hyphenAt3: UInt64 = 0xFF << 24
        let b = p.loadUnaligned(fromByteOffset: 9, as: UInt64.self) & ~hyphenAt4 | (0x30 << 32)
        let c = p.loadUnaligned(fromByteOffset: 15, as: UInt64.self) & ~hyphenAt3 | (0x30 << 24)
        return allHex(p.loadUnaligned(fromByteOffset: 0, as: UInt64.self)) && allHex(b) && allHex(c)
            && allHex(p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)) && allHex(p.loadUnaligned(fromByteOffset: 28, as: UInt64.self))
    }

    /// Whether all eight bytes of `w` are ASCII hex digits, without a branch per byte: for ASCII
    /// bytes, adding `0x80 - k` sets a byte's high bit exactly when the byte is at least `k`.
    @inlinable @inline(__always)
    static func allHex(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        if w & highs != 0 { return false }
        @inline(__always) func atLeast(_ x: UInt64, _ k: UInt64) -> UInt64 { (x &+ ones &* (0x80 - k)) & highs }
        let digit = atLeast(w, 0x30) & ~atLeast(w, 0x3A)
        let lower = w | (ones &* 0x20)
        // `| 0x20` maps exactly 'A'-'F' and 'a'-'f' into 'a'-'f'.
        let letter = atLeast(lower, 0x61) & ~atLeast(lower, 0x67)
        return (digit | letter) == highs
    }

    /// The 16 bytes of a UUID that `matches` accepted (for binary storage keys).
    @inlinable
    public static func bytes(_ p: UnsafeRawPointer) -> (UInt64, UInt64) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var nibbles = 0
        for i in 0..<36 where i != 8 && i != 13 && i != 18 && i != 23 {
            let b = ByteClass.at(p, i)
            let v = UInt64(ByteClass.isDigit(b) ? b &- 0x30 : (b | 0x20) &- 0x61 &+ 10)
            if nibbles < 16 { high = high << 4 | v } else { low = low << 4 | v }
            nibbles += 1
        }
        return (high, low)
    }
}

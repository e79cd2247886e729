/// RFC 9562 UUIDs in their 36-character text form. The version nibble must be 1–8 and the variant
/// bits `10`, which also rejects the nil UUID and hand-made values such as
/// `00000000-0000-0000-0000-005551234567` (CH33 §1: identifiers are random UUIDs).
public enum UUIDFormat {
    @inlinable
    public static func matches(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        guard n == 36 else { return false }
        for i in 0..<36 {
            let b = ByteClass.at(p, i)
            switch i {
            case 8, 13, 18, 23:
                if b != UInt8(ascii: "-") { return false }
            case 14:
                if b &- UInt8(ascii: "1") >= 8 { return false }
            case 19:
                let lower = b | 0x20
                if !(lower == UInt8(ascii: "8") || lower == UInt8(ascii: "9") || lower == UInt8(ascii: "a") || lower == UInt8(ascii: "b")) { return false }
            default:
                if !ByteClass.isHex(b) { return false }
            }
        }
        return true
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

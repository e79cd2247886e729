/// RFC 9562 version 7 UUIDs: a 48-bit Unix time in milliseconds, then random bits. Time-ordered,
/// so a store's unique index grows at its end; random enough (74 bits) to be unique per device.
public enum UUIDv7 {
    /// The text form, lowercase.
    public static func make<R: RandomNumberGenerator>(milliseconds: UInt64, using random: inout R) -> String {
        let high = (milliseconds & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | (random.next() & 0x0FFF)
        let low = random.next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        return format(high: high, low: low)
    }

    public static func make(milliseconds: UInt64) -> String {
        var random = SystemRandomNumberGenerator()
        return make(milliseconds: milliseconds, using: &random)
    }

    /// Canonical 8-4-4-4-12 lowercase text of a 128-bit value.
    public static func format(high: UInt64, low: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(36)
        for index in 0..<16 {
            if index == 8 || index == 12 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int((high >> UInt64(60 - index * 4)) & 0xF)])
        }
        for index in 0..<16 {
            if index == 0 || index == 4 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int((low >> UInt64(60 - index * 4)) & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

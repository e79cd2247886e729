/// Random RFC 9562 UUIDs as text: version 4, or version 7 with a given Unix time in milliseconds.
public enum SyntheticUUID {
    public static func v4(_ random: inout SeededRandom) -> String {
        format(high: random.next() & 0xFFFF_FFFF_FFFF_0FFF | 0x4000, low: random.next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000)
    }

    public static func v7(milliseconds: UInt64, _ random: inout SeededRandom) -> String {
        let high = (milliseconds & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | (random.next() & 0x0FFF)
        return format(high: high, low: random.next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000)
    }

    static func format(high: UInt64, low: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (index, shift) in stride(from: 60, through: 0, by: -4).enumerated() {
            if index == 8 || index == 12 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int((high >> UInt64(shift)) & 0xF)])
        }
        for (index, shift) in stride(from: 60, through: 0, by: -4).enumerated() {
            if index == 0 || index == 4 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int((low >> UInt64(shift)) & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

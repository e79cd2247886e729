import HandzAnalyticsCore

/// Random RFC 9562 UUIDs as text: version 4, or version 7 with a given Unix time in milliseconds.
public enum SyntheticUUID {
    public static func v4(_ random: inout SeededRandom) -> String {
        format(high: random.next() & 0xFFFF_FFFF_FFFF_0FFF | 0x4000, low: random.next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000)
    }

    public static func v7(milliseconds: UInt64, _ random: inout SeededRandom) -> String {
        UUIDv7.make(milliseconds: milliseconds, using: &random)
    }

    static func format(high: UInt64, low: UInt64) -> String { UUIDv7.format(high: high, low: low) }
}

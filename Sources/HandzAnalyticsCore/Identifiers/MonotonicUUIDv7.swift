/// UUIDv7s that sort in the order they were made on one device, also within one millisecond
/// (RFC 9562 §6.2, method 2: the random bits of a new id in the same millisecond as the last are
/// the last id's plus one — or a fresh random value when that is already greater). The server
/// breaks same-millisecond ties by event_id (HandzQuery docs, "Funnel semantics"), so this keeps emission
/// order per device. A clock that steps back keeps the last millisecond until it passes it again,
/// so ids never go backwards either.
public struct MonotonicUUIDv7: Sendable {
    /// The last id issued: (48-bit milliseconds, high word, low word).
    private var last: (ms: UInt64, high: UInt64, low: UInt64)?

    public init() {}

    /// The next id for `milliseconds` (Unix time), greater than every id this generator issued.
    public mutating func next<R: RandomNumberGenerator>(milliseconds: UInt64, using random: inout R) -> String {
        let ms = max(milliseconds & 0xFFFF_FFFF_FFFF, last?.ms ?? 0)
        var high = ms << 16 | 0x7000 | (random.next() & 0x0FFF)
        var low = random.next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        if let last, ms == last.ms, (high, low) <= (last.high, last.low) {
            // The 74 random bits (12 in high, 62 in low) as one counter, plus one. On the
            // (2^-74-rare) overflow the millisecond field carries, which keeps the order.
            (high, low) = (last.high, last.low)
            if low & 0x3FFF_FFFF_FFFF_FFFF == 0x3FFF_FFFF_FFFF_FFFF {
                low = 0x8000_0000_0000_0000
                high = high & 0x0FFF == 0x0FFF ? ((high >> 16) + 1) << 16 | 0x7000 : high + 1
            } else {
                low += 1
            }
        }
        last = (high >> 16, high, low)
        return UUIDv7.format(high: high, low: low)
    }
}

/// An open-addressing hash table (linear probing, at most half full) from a pair of 64-bit words
/// to a non-negative `Int32`, for keys whose bits are random already (UUIDs) or small packed
/// numbers. One multiply-and-shift mix per lookup, where `Dictionary` runs SipHash through
/// `Hasher`: with enum keys, hashing and probing were about 40% of the crash-free sessions read
/// (perf, 20,000 installs × 30 days, BENCHMARKS.md "The store split").
public struct WordPairTable {
    private var highs: [UInt64]
    private var lows: [UInt64]
    /// −1: an empty slot.
    private var values: [Int32]
    private(set) var count = 0

    public init(capacity: Int = 1 << 12) {
        var slots = 16
        while slots < capacity * 2 { slots <<= 1 }
        highs = Array(repeating: 0, count: slots)
        lows = Array(repeating: 0, count: slots)
        values = Array(repeating: -1, count: slots)
    }

    /// The slot where the key is, or the empty slot where it would go.
    private func slot(_ high: UInt64, _ low: UInt64) -> Int {
        var mixed = high &* 0x9E37_79B9_7F4A_7C15 ^ low
        mixed ^= mixed >> 32
        mixed &*= 0xBF58_476D_1CE4_E5B9
        mixed ^= mixed >> 29
        let mask = values.count - 1
        var index = Int(truncatingIfNeeded: mixed) & mask
        while values[index] >= 0 && (highs[index] != high || lows[index] != low) { index = (index + 1) & mask }
        return index
    }

    /// The key's value, nil when absent.
    public func value(_ high: UInt64, _ low: UInt64) -> Int32? {
        let value = values[slot(high, low)]
        return value >= 0 ? value : nil
    }

    /// Sets the key's value (`value` ≥ 0), adding the key when absent.
    public mutating func set(_ high: UInt64, _ low: UInt64, _ value: Int32) {
        precondition(value >= 0, "WordPairTable holds non-negative values")
        let index = slot(high, low)
        if values[index] < 0 {
            if (count + 1) * 2 > values.count {
                grow()
                set(high, low, value)
                return
            }
            highs[index] = high
            lows[index] = low
            count += 1
        }
        values[index] = value
    }

    /// Every (high, low, value), in no particular order.
    public func forEach(_ body: (UInt64, UInt64, Int32) -> Void) {
        for index in values.indices where values[index] >= 0 { body(highs[index], lows[index], values[index]) }
    }

    private mutating func grow() {
        var larger = WordPairTable(capacity: values.count)
        forEach { larger.set($0, $1, $2) }
        self = larger
    }
}

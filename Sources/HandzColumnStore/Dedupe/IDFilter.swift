import HandzAnalyticsCore

/// A blocked Bloom filter of event ids (Putze, Sanders and Singler, "Cache-, hash- and
/// space-efficient Bloom filters"): every id sets and tests bits of one 512-bit block, so a test
/// costs one cache miss, not one per probe. At 12 bits per id and 7 probes an id the run does not
/// hold passes about 1 % of the time; then the run itself is searched (``IDRun``). Pure.
struct IDFilter: Sendable {
    static let bitsPerID = 12
    static let probes = 7
    private var words: [UInt64]
    private let blockMask: UInt64

    /// A filter sized for `capacity` ids (at least one block).
    init(capacity: Int) {
        let blocks = Self.blocks(capacity: capacity)
        words = [UInt64](repeating: 0, count: blocks * 8)
        blockMask = UInt64(blocks - 1)
    }

    /// Blocks for `capacity` ids: a power of two, so a hash picks one with a mask.
    static func blocks(capacity: Int) -> Int {
        var blocks = 1
        while blocks * 512 < max(1, capacity) * bitsPerID { blocks <<= 1 }
        return blocks
    }

    /// The bytes a filter for `capacity` ids takes.
    static func bytes(capacity: Int) -> Int { blocks(capacity: capacity) * 64 }

    var byteCount: Int { words.count * 8 }

    /// A 64-bit mix of both words (v7 ids carry their time in the high word, v4 ids random bits:
    /// both are mixed so that every bit depends on the whole id).
    @inline(__always)
    static func hash(_ id: UUIDWords) -> UInt64 {
        var value = id.high &* 0x9E37_79B9_7F4A_7C15 ^ id.low
        value ^= value >> 32
        value = value &* 0xD6E8_FEB8_6659_FD93
        value ^= value >> 32
        return value
    }

    mutating func insert(_ id: UUIDWords) {
        let hash = Self.hash(id)
        let base = Int(hash & blockMask) * 8
        // Seven 9-bit positions inside the block, from a second mix of the hash (63 bits).
        var probe = (hash ^ (hash >> 29)) &* 0xBF58_476D_1CE4_E5B9
        for _ in 0..<Self.probes {
            let bit = Int(probe & 511)
            words[base + bit >> 6] |= 1 << UInt64(bit & 63)
            probe >>= 9
        }
    }

    /// False when the id is certainly absent.
    @inline(__always)
    func mayContain(_ id: UUIDWords) -> Bool {
        let hash = Self.hash(id)
        let base = Int(hash & blockMask) * 8
        var probe = (hash ^ (hash >> 29)) &* 0xBF58_476D_1CE4_E5B9
        for _ in 0..<Self.probes {
            let bit = Int(probe & 511)
            if words[base + bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
            probe >>= 9
        }
        return true
    }
}

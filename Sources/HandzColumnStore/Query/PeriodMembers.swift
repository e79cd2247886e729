/// The distinct members of each period of one trend line (its installs, users or sessions per
/// day, week or month; members numbered 0 ..< `members` as a ``ScannedRows`` numbers them),
/// counted as `COUNT(DISTINCT …) … GROUP BY period` counts them.
///
/// A bit per (period, member) while the line's periods × members fit in ``bitBudget`` bits
/// (30 days × 100,000 installs: 375 KiB, allocated on the first insert), counted as each is set;
/// past that, `period << 32 | member` words, sorted once and counted per period — memory a word
/// per row whatever the number of periods (ten years of days are 3,660 periods). The bits replace
/// a sort of every matched row: 6 % of `trend … --measure users` at 7.28 M events (perf,
/// BENCHMARKS "Analysts' insights").
struct PeriodMembers {
    /// At most this many bits per line: 8 MiB.
    static let bitBudget = 1 << 26

    private let wordsPerPeriod: Int
    private let useBits: Bool
    private var bits: [UInt64] = []
    private var keys: [UInt64] = []
    private var counts: [Int64]

    init(periods: Int, members: Int, bitBudget: Int = PeriodMembers.bitBudget) {
        wordsPerPeriod = (members + 63) / 64
        useBits = periods * wordsPerPeriod * 64 <= bitBudget
        counts = Array(repeating: 0, count: periods)
    }

    @inline(__always) mutating func insert(period: Int, member: Int32) {
        guard useBits else {
            keys.append(UInt64(period) << 32 | UInt64(UInt32(bitPattern: member)))
            return
        }
        if bits.isEmpty { bits = [UInt64](repeating: 0, count: counts.count * wordsPerPeriod) }
        let (word, bit) = (period * wordsPerPeriod + Int(member) >> 6, UInt64(1) << (UInt64(member) & 63))
        if bits[word] & bit == 0 {
            bits[word] |= bit
            counts[period] += 1
        }
    }

    /// Each period's count of distinct members.
    consuming func periodCounts() -> [Int64] {
        guard !useBits else { return counts }
        keys.sort()
        var previous: UInt64?
        for key in keys where key != previous {
            counts[Int(key >> 32)] += 1
            previous = key
        }
        return counts
    }
}

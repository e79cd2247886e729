import HandzAnalyticsCore
import HandzQuery

/// A `--measure installs` or `--measure sessions` trend's distinct members, per breakdown key,
/// series and period, counted chunk by chunk: each member is its UUID code (the install's or
/// the session's, ``TextKeys``), set as a bit of its line and period, so no row is kept past its
/// chunk and no member is numbered. ``ScannedRows`` would first write every matched row (time,
/// mask, actor) and number the actors in a hash pass: with the first-touch faults of those
/// arrays, most of a served `trend … --measure installs` (perf, BENCHMARKS "Analysts' insights").
///
/// The chunks are dealt to the workers in turn, each worker sets bits of its own, and the
/// workers' bits are joined by OR: a member counts once per period whichever chunks hold it, as
/// `COUNT(DISTINCT …) … GROUP BY period` counts it.
///
/// Not for every store: nil when a chunk's member column is not a UUID column (an id written as
/// other text keys above the UUID codes), or when the bits of the lines would pass
/// ``bitBudget``; the caller then takes the scan.
struct TrendDistinctCounts {
    /// At most this many bits, every line and worker together: 16 MiB. A line of 30 days on the
    /// 7.28 M-event store (1.5 M UUID codes) takes 5.6 MiB a worker, so one line fits and a
    /// breakdown of several values takes the scan, whose memory grows with the rows instead.
    static let bitBudget = 1 << 27

    let periods: Int
    /// 64-bit words per period: the UUID codes (1 ... count) as bits.
    let words: Int
    /// The breakdown keys the budget allows.
    let maxKeys: Int
    /// The breakdown keys in the order first seen (key 0 alone without a breakdown).
    private(set) var keys: [UInt64] = []
    /// Each line's bits by `keyIndex << 3 | series`: `periods × words` words, made on first
    /// sight (empty: no member yet).
    private(set) var bits: [[UInt64]] = []
    private var indexOfKey: [UInt64: Int] = [:]

    init(periods: Int, words: Int, maxKeys: Int) {
        (self.periods, self.words, self.maxKeys) = (periods, words, maxKeys)
    }

    init?(_ request: ScanRequest, query: TrendQuery, store: ColumnStore, bitBudget: Int = Self.bitBudget) throws(ColumnStoreError) {
        let memberColumn: String
        switch query.measure {
        case .installs: memberColumn = ColumnName.installID
        case .sessions: memberColumn = ColumnName.sessionID
        case .events, .users: return nil
        }
        let periods = query.periodStarts.count
        let words = (store.manifest.uuids.count + 1 + 63) / 64
        // Every series of a breakdown key at worst, on each worker.
        let maxKeys = bitBudget / max(1, periods * words * 64 * query.series.count * ParallelWork.workers)
        guard maxKeys > 0 else { return nil }
        self.init(periods: periods, words: words, maxKeys: maxKeys)
        let lower = request.fromMs ?? .min, upper = request.toMs ?? .max
        let entries = request.chunks(in: store)
        let breakdown = request.textColumns.first.map(RowMatchers.columnName)
        let starts = query.periodStarts
        let lanes = (0..<ParallelWork.workers).map { lane in Array(stride(from: lane, to: entries.count, by: ParallelWork.workers).map { entries[$0] }) }
        let counted = try ParallelWork.map(lanes) { lane throws(ColumnStoreError) -> TrendDistinctCounts? in
            var counts = TrendDistinctCounts(periods: periods, words: words, maxKeys: maxKeys)
            for entry in lane {
                let read = try store.columns(entry)
                guard read.chunk.rows > 0 else { continue }
                guard read.chunk.entry(memberColumn)?.type == .uuid || read.chunk.entry(memberColumn) == nil else { return nil }
                let members = try read.keyColumn(memberColumn, store.textKeys)
                let times = try read.times(ColumnName.eventTime)
                let masks = try request.matchers.masks(read, strings: store.strings)
                let values = try breakdown.map { name throws(ColumnStoreError) in try read.textKeys(name, store.textKeys) }
                var (lastKey, lastIndex): (UInt64?, Int) = (nil, 0)
                for row in 0..<read.chunk.rows where masks[row] != 0 && times[row] >= lower && times[row] < upper {
                    let member = members[row]
                    if member == 0 { continue }  // COUNT(DISTINCT) leaves out a NULL session
                    let key = values?[row] ?? 0
                    if key != lastKey {
                        guard let index = counts.index(of: key) else { return nil }
                        (lastKey, lastIndex) = (key, index)
                    }
                    let word = query.period(of: times[row], monthStarts: starts) * words + Int(member >> 6)
                    let bit = UInt64(1) << (member & 63)
                    var mask = masks[row]
                    while mask != 0 {
                        counts.set(line: lastIndex << 3 | mask.trailingZeroBitCount, word: word, bit: bit)
                        mask &= mask - 1
                    }
                }
            }
            return counts
        }
        for lane in counted {
            guard let lane, add(lane) else { return nil }
        }
    }

    /// The place of `key`'s lines, added on first sight; nil past ``maxKeys``.
    private mutating func index(of key: UInt64) -> Int? {
        if let known = indexOfKey[key] { return known }
        guard keys.count < maxKeys else { return nil }
        indexOfKey[key] = keys.count
        keys.append(key)
        bits.append(contentsOf: repeatElement([], count: 8))
        return keys.count - 1
    }

    @inline(__always) private mutating func set(line: Int, word: Int, bit: UInt64) {
        if bits[line].isEmpty { bits[line] = [UInt64](repeating: 0, count: periods * words) }
        bits[line][word] |= bit
    }

    /// Adds another worker's members to these (OR); false past ``maxKeys``.
    private mutating func add(_ other: TrendDistinctCounts) -> Bool {
        for (otherIndex, key) in other.keys.enumerated() {
            guard let keyIndex = index(of: key) else { return false }
            for series in 0..<8 where !other.bits[otherIndex << 3 | series].isEmpty {
                let (line, theirs) = (keyIndex << 3 | series, other.bits[otherIndex << 3 | series])
                guard !bits[line].isEmpty else {
                    bits[line] = theirs
                    continue
                }
                bits[line].withUnsafeMutableBufferPointer { mine in
                    for word in mine.indices { mine[word] |= theirs[word] }
                }
            }
        }
        return true
    }
}

extension ColumnTrend {
    /// The report's rows of a distinct count from `counts`; `kept` as in
    /// `TrendSQLBuilder/sql(_:kept:)`: the keys a report names "(other)" joined into one line.
    func distinctRows(_ counts: TrendDistinctCounts, kept: [String]?) -> [TrendReport.Row] {
        let (periods, words) = (counts.periods, counts.words)
        var values = TrendLineValues(kept: kept, store: store)
        // Each named line (`value << 3 | series`) with its bits, in order of first sight.
        var lines: [Int: [UInt64]] = [:]
        var order: [Int] = []
        for (keyIndex, key) in counts.keys.enumerated() {
            let value = values.index(of: key)
            for series in 0..<8 where !counts.bits[keyIndex << 3 | series].isEmpty {
                let bits = counts.bits[keyIndex << 3 | series]
                let line = value << 3 | series
                guard var joined = lines.removeValue(forKey: line) else {
                    lines[line] = bits
                    order.append(line)
                    continue
                }
                for word in joined.indices { joined[word] |= bits[word] }
                lines[line] = joined
            }
        }
        var rows: [TrendReport.Row] = []
        for line in order {
            let (series, named, bits) = (line & 7, values.named[line >> 3], lines[line]!)
            var all = [UInt64](repeating: 0, count: words)
            for period in 0..<periods {
                var count = 0
                for word in 0..<words {
                    let here = bits[period * words + word]
                    count += here.nonzeroBitCount
                    all[word] |= here
                }
                if count > 0 {
                    rows.append(TrendReport.Row(series: series, period: period, value: named.value, isOther: named.isOther, count: Int64(count)))
                }
            }
            rows.append(TrendReport.Row(series: series, period: -1, value: named.value, isOther: named.isOther,
                                        count: Int64(all.reduce(0) { $0 + $1.nonzeroBitCount })))
        }
        return rows
    }
}

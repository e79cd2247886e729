import HandzAnalyticsCore
import HandzQuery

/// A `--measure events` trend's counts, per breakdown key, series and period, counted chunk by
/// chunk on both cores: nothing of a row outlives its chunk. A count of events needs no actor
/// and no distinct set, so the flat arrays of a ``ScannedRows`` (a time, an event, a mask and a
/// key per row of every matched chunk: 3.6 M rows for `app_open,screen_viewed` over 30 days at
/// 100,000 installs) would only be written to be read once — their fresh pages were a fifth of
/// a served events trend (perf). The sums are the same, so the report is too.
struct TrendEventCounts {
    /// The breakdown keys in the order the chunks first hold them (key 0 alone without a breakdown).
    private(set) var keys: [UInt64] = []
    /// `counts[(keyIndex * 8 + series) * periods + period]`.
    private(set) var counts: [Int64] = []
    let periods: Int
    private var indexOfKey: [UInt64: Int] = [:]

    init(periods: Int) { self.periods = periods }

    init(_ request: ScanRequest, query: TrendQuery, store: ColumnStore) throws(ColumnStoreError) {
        self.init(periods: query.periodStarts.count)
        let lower = request.fromMs ?? .min, upper = request.toMs ?? .max
        let entries = request.chunks(in: store)
        let breakdown = request.textColumns.first.map(RowMatchers.columnName)
        let starts = query.periodStarts
        let periods = periods
        for start in stride(from: 0, to: entries.count, by: ScannedRows.chunksPerWave) {
            let wave = Array(entries[start..<min(start + ScannedRows.chunksPerWave, entries.count)])
            let parts = try ParallelWork.map(wave) { entry throws(ColumnStoreError) -> TrendEventCounts in
                let read = try store.columns(entry)
                let times = try read.times(ColumnName.eventTime)
                let masks = try request.matchers.masks(read, strings: store.strings)
                let values = try breakdown.map { name throws(ColumnStoreError) in try read.textKeys(name, store.textKeys) }
                var part = TrendEventCounts(periods: periods)
                var (lastKey, lastIndex): (UInt64?, Int) = (nil, 0)
                for row in 0..<read.chunk.rows where masks[row] != 0 && times[row] >= lower && times[row] < upper {
                    let key = values?[row] ?? 0
                    if key != lastKey { (lastKey, lastIndex) = (key, part.index(of: key)) }
                    let period = query.period(of: times[row], monthStarts: starts)
                    var mask = masks[row]
                    while mask != 0 {
                        part.counts[(lastIndex << 3 | mask.trailingZeroBitCount) * periods + period] += 1
                        mask &= mask - 1
                    }
                }
                return part
            }
            for part in parts { add(part) }
        }
    }

    /// The place of `key`'s counts, added on first sight.
    private mutating func index(of key: UInt64) -> Int {
        if let known = indexOfKey[key] { return known }
        indexOfKey[key] = keys.count
        keys.append(key)
        counts.append(contentsOf: repeatElement(0, count: 8 * periods))
        return keys.count - 1
    }

    /// Adds another chunk's counts to these.
    private mutating func add(_ other: TrendEventCounts) {
        for (otherIndex, key) in other.keys.enumerated() {
            let base = index(of: key) * 8 * periods, otherBase = otherIndex * 8 * periods
            for offset in 0..<(8 * periods) { counts[base + offset] += other.counts[otherBase + offset] }
        }
    }
}

extension ColumnTrend {
    /// The report's rows of an events trend; `kept` as in `TrendSQLBuilder/sql(_:kept:)`: the
    /// keys a report names "(other)" summed into one line.
    func eventRows(_ query: TrendQuery, _ counts: TrendEventCounts, kept: [String]?) -> [TrendReport.Row] {
        let periods = counts.periods
        var values = TrendLineValues(kept: kept, store: store)
        // Each line (`value << 3 | series`) with its period counts, in order of first sight.
        var lines: [Int: [Int64]] = [:]
        var order: [Int] = []
        for (keyIndex, key) in counts.keys.enumerated() {
            let value = values.index(of: key)
            for series in 0..<8 {
                let base = (keyIndex << 3 | series) * periods
                let slice = counts.counts[base ..< base + periods]
                guard slice.contains(where: { $0 != 0 }) else { continue }
                let line = value << 3 | series
                if lines[line] == nil {
                    lines[line] = Array(repeating: 0, count: periods)
                    order.append(line)
                }
                for (period, count) in slice.enumerated() { lines[line]![period] += count }
            }
        }
        var rows: [TrendReport.Row] = []
        for line in order {
            let (series, named, perPeriod) = (line & 7, values.named[line >> 3], lines[line]!)
            for (period, count) in perPeriod.enumerated() where count > 0 {
                rows.append(TrendReport.Row(series: series, period: period, value: named.value, isOther: named.isOther, count: count))
            }
            rows.append(TrendReport.Row(series: series, period: -1, value: named.value, isOther: named.isOther, count: perPeriod.reduce(0, +)))
        }
        return rows
    }
}

/// A trend's numbers (``TrendQuery``): one line per series and breakdown value, a count per
/// period and the count over the whole range. Both engines build it from the same rows (``Row``:
/// series, period, value, other, count), so the column engine and the SQL agree by construction
/// of the shape, and the tests hold their counts equal.
public struct TrendReport: Sendable, Equatable {
    /// One series (and breakdown value): its count in each period of ``TrendReport/periodStarts``.
    public struct Line: Sendable, Equatable {
        /// The series' index in the query (0-based) and its text form (`TrendQuery.text`).
        public var series: Int
        public var label: String
        /// The breakdown value; nil for "(not set)" or when there is no breakdown.
        public var value: String?
        /// The values past the breakdown limit, counted together.
        public var isOther: Bool
        public var counts: [Int64]
        /// Over the whole range: a distinct count is not the sum of the periods'.
        public var total: Int64

        public init(series: Int, label: String, value: String?, isOther: Bool, counts: [Int64], total: Int64) {
            self.series = series
            self.label = label
            self.value = value
            self.isOther = isOther
            self.counts = counts
            self.total = total
        }
    }

    /// One row of either engine: `period` -1 is the whole range.
    public struct Row: Sendable, Equatable {
        public var series: Int
        public var period: Int
        public var value: String?
        public var isOther: Bool
        public var count: Int64

        public init(series: Int, period: Int, value: String?, isOther: Bool, count: Int64) {
            self.series = series
            self.period = period
            self.value = value
            self.isOther = isOther
            self.count = count
        }
    }

    public var query: TrendQuery
    public var periodStarts: [Int64]
    /// By series, then by total (largest first), then value; "(not set)" and "(other)" last.
    public var lines: [Line]

    public init(query: TrendQuery, periodStarts: [Int64], lines: [Line]) {
        self.query = query
        self.periodStarts = periodStarts
        self.lines = lines
    }

    /// The report of `rows` (either engine's): every series appears, with zeros when nothing
    /// matched; a breakdown's values appear when they have events.
    public static func assemble(_ query: TrendQuery, rows: [Row]) -> TrendReport {
        let starts = query.periodStarts
        struct Key: Hashable { var series: Int; var value: String?; var isOther: Bool }
        var lines: [Key: Line] = [:]
        for row in rows {
            let key = Key(series: row.series, value: row.value, isOther: row.isOther)
            var line = lines[key] ?? Line(series: row.series, label: TrendQuery.text([query.series[row.series]]), value: row.value,
                                          isOther: row.isOther, counts: Array(repeating: 0, count: starts.count), total: 0)
            if row.period < 0 { line.total = row.count } else if row.period < starts.count { line.counts[row.period] = row.count }
            lines[key] = line
        }
        if query.breakdown == nil {
            for series in query.series.indices where lines[Key(series: series, value: nil, isOther: false)] == nil {
                lines[Key(series: series, value: nil, isOther: false)] = Line(series: series, label: TrendQuery.text([query.series[series]]), value: nil,
                                                                               isOther: false, counts: Array(repeating: 0, count: starts.count), total: 0)
            }
        }
        return TrendReport(query: query, periodStarts: starts, lines: lines.values.sorted(by: order))
    }

    /// Series first; in a series the named values by total (largest first) then text, then
    /// "(not set)", then "(other)".
    static func order(_ a: Line, _ b: Line) -> Bool {
        if a.series != b.series { return a.series < b.series }
        let rank = { (line: Line) in line.isOther ? 2 : (line.value == nil ? 1 : 0) }
        if rank(a) != rank(b) { return rank(a) < rank(b) }
        if a.total != b.total { return a.total > b.total }
        return (a.value ?? "") < (b.value ?? "")
    }

    /// The report of an engine that gives ``Row``s for a `kept` list (nil: every value): run once;
    /// with a breakdown limit and more values than it keeps, run again with the values
    /// ``keptValues(_:limit:)`` picks, so "(other)" is counted over its own events.
    public static func run(_ query: TrendQuery, _ rows: ([String]?) throws -> [Row]) rethrows -> TrendReport {
        let all = try rows(nil)
        guard let limit = query.breakdownLimit, query.breakdown != nil else { return assemble(query, rows: all) }
        let kept = keptValues(all, limit: limit)
        guard Set(all.compactMap(\.value)).count > kept.count else { return assemble(query, rows: all) }
        return assemble(query, rows: try rows(kept))
    }

    /// The breakdown values a page keeps (``TrendQuery/breakdownLimit``): per the rows of a run
    /// without a limit, the `limit` named values with the largest total over every series (ties by
    /// text). Both engines run again with these, the rest counted as "(other)".
    public static func keptValues(_ rows: [Row], limit: Int) -> [String] {
        var totals: [String: Int64] = [:]
        for row in rows where row.period < 0 {
            if let value = row.value { totals[value, default: 0] += row.count }
        }
        return totals.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(limit).map(\.key)
    }
}

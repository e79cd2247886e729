import HandzAnalyticsCore
import HandzQuery

/// A trend (issue 35 §1, `TrendQuery`) on the column store: the rows of `TrendSQLBuilder`'s
/// `ev` read from the chunks once, then counted per series, breakdown value and period in Swift
/// exactly as its `GROUP BY` counts them — the same periods, the same distinct counts (each
/// install resolved to its user for `users`, through `ScanRequest/actor`), the same "(other)".
/// The tests hold it to the SQL on the same events.
///
/// Distinct counts: installs and sessions are counted chunk by chunk in bits over the members'
/// UUID codes (`TrendDistinctCounts`, within its memory budget); otherwise, and for users, each
/// (series, value) of the scan counts its members per period (`PeriodMembers`: a bit per period
/// and member while they fit, else sorted words) and in total (a bit set of members). Events are
/// counted chunk by chunk (`TrendEventCounts`).
public struct ColumnTrend {
    public let store: ColumnStore
    public let catalog: Catalog

    /// The bits `TrendDistinctCounts` may take (its tests set 0 to run the scan instead).
    var distinctBitBudget = TrendDistinctCounts.bitBudget

    public init(store: ColumnStore, catalog: Catalog) {
        self.store = store
        self.catalog = catalog
    }

    public func run(_ query: TrendQuery) throws -> TrendReport {
        // The same checks, and so the same errors, as the SQL.
        try query.validate(catalog)
        let request = scanRequest(query)
        if query.measure == .events {
            let counts = try TrendEventCounts(request, query: query, store: store)
            return TrendReport.run(query) { kept in eventRows(query, counts, kept: kept) }
        }
        if let counts = try distinctCounts(query) {
            return TrendReport.run(query) { kept in distinctRows(counts, kept: kept) }
        }
        let scanned = try ScannedRows(request, store: store)
        return TrendReport.run(query) { kept in rows(query, scanned, kept: kept) }
    }

    /// What the trend reads: its series' rows of the range, with what its measure counts.
    func scanRequest(_ query: TrendQuery) -> ScanRequest {
        var request = ScanRequest()
        request.events = Set(query.events)
        request.fromMs = query.fromMs
        request.toMs = query.toMs
        for (index, match) in query.series.enumerated() {
            request.matchers.add(bit: UInt32(1) << UInt32(index), events: match.events, filters: match.filters, catalog: catalog, strings: store.strings)
        }
        request.textColumns = query.breakdown.map { [$0] } ?? []
        request.withSessions = query.measure == .sessions
        request.actor = query.measure == .users ? .user : .install
        request.withActors = query.measure == .installs || query.measure == .users
        return request
    }

    /// An installs or sessions trend counted in bits (`TrendDistinctCounts`), or nil where it
    /// does not apply.
    func distinctCounts(_ query: TrendQuery) throws(ColumnStoreError) -> TrendDistinctCounts? {
        try TrendDistinctCounts(scanRequest(query), query: query, store: store, bitBudget: distinctBitBudget)
    }

    /// The report's rows of a distinct count (users, and installs or sessions where
    /// `TrendDistinctCounts` does not apply; events are counted without a scan,
    /// `TrendEventCounts`) from one scan; `kept` as in `TrendSQLBuilder/sql(_:kept:)`.
    ///
    /// Lines are found by integers: each breakdown key's line value (a dense index of what the
    /// report names it: a value, "(not set)" or "(other)") is worked out once per distinct key,
    /// and a row's line is `value << 3 | series`, its place in an array indexed by it (a
    /// dictionary of lines was a third of a served `--measure events` trend, perf).
    func rows(_ query: TrendQuery, _ scanned: ScannedRows, kept: [String]?) -> [TrendReport.Row] {
        let starts = query.periodStarts
        var values = TrendLineValues(kept: kept, store: store)
        func valueIndex(_ key: UInt64) -> Int { values.index(of: key) }
        // Each line's place: `places[value << 3 | series]` (-1: none yet), grown with the values.
        // A line's distinct members, per period and in all, are `periodMembers[place]` and `members[place]`.
        let periodCount = starts.count
        let memberCount = query.measure == .sessions ? scanned.sessions.count : scanned.installs.count
        var places = [Int](repeating: -1, count: 8)
        var lines: [Int] = []
        var periodMembers: [PeriodMembers] = []
        var members: [MemberSet] = []
        let breakdownKeys = query.breakdown == nil ? nil : scanned.texts[0]
        var lastKey: UInt64 = 0, lastIndex = 0
        for row in 0..<scanned.count where scanned.masks[row] != 0 {
            let period = query.period(of: scanned.time[row], monthStarts: starts)
            var value = 0
            if let breakdownKeys {
                let key = breakdownKeys[row]
                if key != lastKey {
                    (lastKey, lastIndex) = (key, valueIndex(key))
                    if places.count < values.named.count << 3 { places.append(contentsOf: repeatElement(-1, count: (values.named.count << 3) - places.count)) }
                }
                value = lastIndex
            }
            let member: Int32
            switch query.measure {
            case .events, .installs, .users: member = scanned.actor[row]  // (events never come here)
            case .sessions:
                member = scanned.session[row]
                if member < 0 { continue }  // COUNT(DISTINCT) leaves out a NULL session
            }
            var mask = scanned.masks[row]
            while mask != 0 {
                let series = mask.trailingZeroBitCount
                mask &= mask - 1
                let line = value << 3 | series
                var place = places[line]
                if place < 0 {
                    place = lines.count
                    places[line] = place
                    lines.append(line)
                    periodMembers.append(PeriodMembers(periods: periodCount, members: memberCount))
                    members.append(MemberSet(members: memberCount))
                }
                periodMembers[place].insert(period: period, member: member)
                members[place].insert(member)
            }
        }
        var rows: [TrendReport.Row] = []
        for (place, line) in lines.enumerated() {
            let counts = periodMembers[place].periodCounts()
            let total = Int64(members[place].count)
            let (series, named) = (line & 7, values.named[line >> 3])
            for (period, count) in counts.enumerated() where count > 0 {
                rows.append(TrendReport.Row(series: series, period: period, value: named.value, isOther: named.isOther, count: count))
            }
            rows.append(TrendReport.Row(series: series, period: -1, value: named.value, isOther: named.isOther, count: total))
        }
        return rows
    }
}

/// What a trend's lines are named by: each breakdown key's dense index of a value the report
/// shows — the value, "(not set)" (index 0: key 0, and no breakdown) or "(other)" when `kept`
/// leaves it out — worked out once per distinct key.
struct TrendLineValues {
    private(set) var named: [(value: String?, isOther: Bool)] = [(nil, false)]
    private let kept: Set<String>?
    private let store: ColumnStore
    private var otherIndex: Int?
    private var indexOfKey: [UInt64: Int] = [0: 0]

    init(kept: [String]?, store: ColumnStore) {
        self.kept = kept.map(Set.init)
        self.store = store
    }

    mutating func index(of key: UInt64) -> Int {
        if let known = indexOfKey[key] { return known }
        let text = store.textKeys.text(key, store.strings)
        let index: Int
        if let kept, !kept.contains(text ?? "") {
            if otherIndex == nil {
                otherIndex = named.count
                named.append((nil, true))
            }
            index = otherIndex!
        } else {
            index = named.count
            named.append((text, false))
        }
        indexOfKey[key] = index
        return index
    }
}

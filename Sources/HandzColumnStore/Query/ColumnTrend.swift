import HandzAnalyticsCore
import HandzQuery

/// A trend (issue 35 §1, `TrendQuery`) on the column store: the rows of `TrendSQLBuilder`'s
/// `ev` read from the chunks once, then counted per series, breakdown value and period in Swift
/// exactly as its `GROUP BY` counts them — the same periods, the same distinct counts (each
/// install resolved to its user for `users`, through `ScanRequest/actor`), the same "(other)".
/// The tests hold it to the SQL on the same events.
///
/// Distinct counts: each (series, value) collects `period << 32 | member` for its rows, sorted
/// once and counted per period; its total is a bit set of members. Memory is a word per matched
/// row, whatever the number of periods (a bit set per period would be 3,660 of them for ten
/// years of days).
public struct ColumnTrend {
    public let store: ColumnStore
    public let catalog: Catalog

    public init(store: ColumnStore, catalog: Catalog) {
        self.store = store
        self.catalog = catalog
    }

    public func run(_ query: TrendQuery) throws -> TrendReport {
        // The same checks, and so the same errors, as the SQL.
        try query.validate(catalog)
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
        let scanned = try ScannedRows(request, store: store)
        return TrendReport.run(query) { kept in rows(query, scanned, kept: kept) }
    }

    /// The report's rows from one scan; `kept` as in `TrendSQLBuilder/sql(_:kept:)`.
    func rows(_ query: TrendQuery, _ scanned: ScannedRows, kept: [String]?) -> [TrendReport.Row] {
        let starts = query.periodStarts
        // Each breakdown key's value as the report names it: nil for "(not set)" (key 0) and for
        // "(other)", which `isOther` tells apart.
        var valueOfKey: [UInt64: (value: String?, isOther: Bool)] = [0: (nil, false)]
        let keptSet = kept.map(Set.init)
        func value(_ key: UInt64) -> (value: String?, isOther: Bool) {
            if let known = valueOfKey[key] { return known }
            let text = store.textKeys.text(key, store.strings)
            let named: (String?, Bool) = keptSet.map { $0.contains(text ?? "") ? (text, false) : (nil, true) } ?? (text, false)
            valueOfKey[key] = named
            return named
        }
        struct Group: Hashable { var series: Int; var value: String?; var isOther: Bool }
        struct Tally {
            var events: [Int64]
            var total: Int64 = 0
            var keys: [UInt64] = []
            var members: MemberSet
        }
        let memberCount = query.measure == .sessions ? scanned.sessions.count : scanned.installs.count
        var places: [Group: Int] = [:]
        var groups: [Group] = []
        var tallies: [Tally] = []
        for row in 0..<scanned.count where scanned.masks[row] != 0 {
            let period = query.period(of: scanned.time[row], monthStarts: starts)
            let named = query.breakdown == nil ? (value: nil, isOther: false) : value(scanned.texts[0][row])
            let member: Int32
            switch query.measure {
            case .events: member = 0
            case .installs, .users: member = scanned.actor[row]
            case .sessions:
                member = scanned.session[row]
                if member < 0 { continue }  // COUNT(DISTINCT) leaves out a NULL session
            }
            var mask = scanned.masks[row]
            while mask != 0 {
                let series = mask.trailingZeroBitCount
                mask &= mask - 1
                let group = Group(series: series, value: named.value, isOther: named.isOther)
                let place: Int
                if let known = places[group] { place = known } else {
                    place = tallies.count
                    places[group] = place
                    groups.append(group)
                    tallies.append(Tally(events: Array(repeating: 0, count: starts.count), members: MemberSet(members: memberCount)))
                }
                if query.measure == .events {
                    tallies[place].events[period] += 1
                    tallies[place].total += 1
                } else {
                    tallies[place].keys.append(UInt64(period) << 32 | UInt64(UInt32(bitPattern: member)))
                    tallies[place].members.insert(member)
                }
            }
        }
        var rows: [TrendReport.Row] = []
        for (group, var tally) in zip(groups, tallies) {
            var counts = tally.events
            var total = tally.total
            if query.measure != .events {
                tally.keys.sort()
                var previous: UInt64?
                for key in tally.keys where key != previous {
                    counts[Int(key >> 32)] += 1
                    previous = key
                }
                total = Int64(tally.members.count)
            }
            for (period, count) in counts.enumerated() where count > 0 {
                rows.append(TrendReport.Row(series: group.series, period: period, value: group.value, isOther: group.isOther, count: count))
            }
            rows.append(TrendReport.Row(series: group.series, period: -1, value: group.value, isOther: group.isOther, count: total))
        }
        return rows
    }
}

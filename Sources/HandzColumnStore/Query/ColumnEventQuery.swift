import HandzAnalyticsCore
import HandzQuery

/// The dashboards' event queries (CH33 §7; `EventQuery`) on the column store: the rows of the
/// query's `ev` CTE read from the chunks, grouped and counted in Swift exactly as
/// `EventQuerySQLBuilder`'s statements group and count them — the same exact days from `from`,
/// the same distinct counts (a NULL session is not a session), the same lower quantiles. The
/// tests hold every panel to the SQL.
///
/// `session_share` without a session key (the per-day `sessions_without`, which no dashboard
/// uses) is left to the SQL path (``supports(_:)``).
public struct ColumnEventQuery {
    public let store: ColumnStore
    public let catalog: Catalog

    public init(store: ColumnStore, catalog: Catalog) {
        self.store = store
        self.catalog = catalog
    }

    public static func supports(_ query: EventQuery) -> Bool { query.kind != .sessionShare || query.sessionKey != nil }

    static let matchBit: UInt32 = 1, denominatorBit: UInt32 = 2

    public func run(_ query: EventQuery, fromMs: Int64, toMs: Int64) throws -> EventQueryResult {
        precondition(Self.supports(query), "ColumnEventQuery.run on a query it does not answer")
        // The same checks, and so the same errors, as the SQL (range, closed sets, properties).
        _ = try EventQuerySQLBuilder(catalog: catalog, dialect: .sqlite).statements(query, fromMs: fromMs, toMs: toMs)
        var request = ScanRequest()
        request.events = Set(query.events)
        request.fromMs = fromMs
        request.toMs = toMs
        request.matchers.add(bit: Self.matchBit, events: query.match.events, filters: query.match.filters, catalog: catalog, strings: store.strings)
        switch query.kind {
        case .dailyCounts:
            request.withSessions = true
            request.textColumns = [query.split, query.firstPerKey].compactMap { $0 }
            if query.firstPerKey != nil {
                // The first event of each key value over all stored data, then the range.
                (request.fromMs, request.toMs, request.withIDs) = (nil, nil, true)
            }
            return .daily(dailyCounts(query, try ScannedRows(request, store: store), fromMs: fromMs, toMs: toMs))
        case .dailyRatio:
            guard let denominator = query.denominator else { throw QueryError.invalidRange("daily_ratio needs a denominator") }
            request.matchers.add(bit: Self.denominatorBit, events: denominator.events, filters: denominator.filters, catalog: catalog, strings: store.strings)
            request.withSessions = query.count == .sessions
            return dailyRatio(query, try ScannedRows(request, store: store), fromMs: fromMs)
        case .topValues:
            request.textColumns = query.properties
            return .values(topValues(try ScannedRows(request, store: store)))
        case .histogram:
            request.integerColumns = query.properties
            let rows = try ScannedRows(request, store: store)
            var values: [Int64] = []
            for row in 0..<rows.count where rows.has(row, Self.matchBit) {
                if let value = rows.integers[0][row] { values.append(value) }
            }
            var counts: [Int64: Int64] = [:]
            // Integer division truncates, as SQL's does.
            for value in values { counts[value / query.bucketWidth * query.bucketWidth, default: 0] += 1 }
            return .histogram(buckets: counts.map { HistogramBucket(lower: $0.key, count: $0.value) }.sorted { $0.lower < $1.lower },
                              quantiles: query.quantiles.map { Quantile(percent: $0, value: Quantile.lower(values, percent: $0)) }.sorted { $0.percent < $1.percent })
        case .followedBy:
            let kpi = query.followedByKPI(id: "followed_by")
            let report = try ColumnKPI(store: store, catalog: catalog, firstSeen: InstallFirstSeenTimes()).run(KPIQuery(kpi: kpi, fromMs: fromMs, toMs: toMs))
            guard case .ratio(let numerator, let denominator) = report.rows else { preconditionFailure("followed_by is a ratio") }
            return .conversion(numerator: numerator, denominator: denominator)
        case .sessionShare:
            return try sessionShare(query, fromMs: fromMs, toMs: toMs)
        }
    }

    /// The day of `time` counted from `from` (exact 24 h periods).
    func day(_ time: Int64, _ fromMs: Int64) -> Int64 { (time - fromMs) / EventQuery.dayMs }

    func dailyCounts(_ query: EventQuery, _ rows: ScannedRows, fromMs: Int64, toMs: Int64) -> [DailyCount] {
        let splitColumn = query.split == nil ? nil : 0
        var counted = [Int](0..<rows.count).filter { rows.has($0, Self.matchBit) }
        if query.firstPerKey != nil {
            // Per key value, its first event by (time, id); counted when that is in the range.
            let keys = rows.texts[query.split == nil ? 0 : 1]
            var first: [UInt64: Int] = [:]
            for row in counted where keys[row] != 0 {
                if let known = first[keys[row]], (rows.time[known], rows.ids[known]) < (rows.time[row], rows.ids[row]) { continue }
                first[keys[row]] = row
            }
            counted = first.values.filter { rows.time[$0] >= fromMs && rows.time[$0] < toMs }
        }
        struct Group: Hashable { var day: Int64; var series: UInt64 }
        struct Tally { var events: Int64 = 0; var actors: MemberSet; var sessions: MemberSet }
        // One lookup per row: the group's place in `tallies`.
        var places: [Group: Int] = [:]
        var groups: [Group] = []
        var tallies: [Tally] = []
        for row in counted {
            let group = Group(day: day(rows.time[row], fromMs), series: splitColumn.map { rows.texts[$0][row] } ?? 0)
            let place: Int
            if let known = places[group] { place = known } else {
                place = tallies.count
                places[group] = place
                groups.append(group)
                tallies.append(Tally(actors: MemberSet(members: rows.installs.count), sessions: MemberSet(members: rows.sessions.count)))
            }
            tallies[place].events += 1
            tallies[place].actors.insert(rows.actor[row])
            if rows.session[row] >= 0 { tallies[place].sessions.insert(rows.session[row]) }
        }
        return zip(groups, tallies).map { group, tally in
            DailyCount(day: group.day, series: store.textKeys.text(group.series, store.strings), events: tally.events,
                       actors: Int64(tally.actors.count), sessions: Int64(tally.sessions.count))
        }.sorted { ($0.day, $0.series ?? "\u{10FFFF}") < ($1.day, $1.series ?? "\u{10FFFF}") }
    }

    func dailyRatio(_ query: EventQuery, _ rows: ScannedRows, fromMs: Int64) -> EventQueryResult {
        /// Numerator and denominator of one day, or of the whole range.
        let members = query.count == .sessions ? rows.sessions.count : rows.installs.count
        struct Counter {
            var events = (numerator: Int64(0), denominator: Int64(0))
            var numeratorMembers: MemberSet, denominatorMembers: MemberSet
            init(members: Int) { (numeratorMembers, denominatorMembers) = (MemberSet(members: members), MemberSet(members: members)) }
        }
        var days: [Int64: Counter] = [:]
        var total = Counter(members: members)
        func count(_ counter: inout Counter, _ row: Int) {
            let isNumerator = rows.has(row, Self.matchBit), isDenominator = rows.has(row, Self.denominatorBit)
            switch query.count {
            case .events:
                if isNumerator { counter.events.numerator += 1 }
                if isDenominator { counter.events.denominator += 1 }
            case .actors, .sessions:
                let member = query.count == .actors ? rows.actor[row] : rows.session[row]
                guard member >= 0 else { return }
                if isNumerator { counter.numeratorMembers.insert(member) }
                if isDenominator { counter.denominatorMembers.insert(member) }
            }
        }
        for row in 0..<rows.count where rows.masks[row] != 0 {
            count(&days[day(rows.time[row], fromMs), default: Counter(members: members)], row)
            count(&total, row)
        }
        func ratio(_ day: Int64, _ counter: Counter) -> DailyRatio {
            query.count == .events
                ? DailyRatio(day: day, numerator: counter.events.numerator, denominator: counter.events.denominator)
                : DailyRatio(day: day, numerator: Int64(counter.numeratorMembers.count), denominator: Int64(counter.denominatorMembers.count))
        }
        return .ratio(days: days.map { ratio($0.key, $0.value) }.sorted { $0.day < $1.day }, total: ratio(-1, total))
    }

    func topValues(_ rows: ScannedRows) -> [ValueCount] {
        var events: [[UInt64]: Int64] = [:]
        var actors: [[UInt64]: Set<Int32>] = [:]
        for row in 0..<rows.count where rows.has(row, Self.matchBit) {
            let values = rows.texts.map { $0[row] }
            events[values, default: 0] += 1
            actors[values, default: []].insert(rows.actor[row])
        }
        return events.map { values, count in
            ValueCount(values: values.map { store.textKeys.text($0, store.strings) }, events: count, actors: Int64(actors[values]?.count ?? 0))
        }.sorted { lhs, rhs in
            if lhs.events != rhs.events { return lhs.events > rhs.events }
            return lhs.values.map { $0 ?? "\u{10FFFF}" }.lexicographicallyPrecedes(rhs.values.map { $0 ?? "\u{10FFFF}" })
        }
    }
}

/// Distinct members of one group — actors or sessions, as a ``ScannedRows`` numbers them
/// (0 ..< `members`) — counted as they are inserted: a bitset when there are at most 2²⁰ members
/// (one bit each: 12.5 KiB for 100,000 installs, allocated on the first insert), a set past
/// that. `Set<Int32>` inserts, hashing each member, were most of the 19 % the 100,000-install
/// render spent hashing (perf).
struct MemberSet {
    private let members: Int
    private var bits: [UInt64] = []
    private var set: Set<Int32> = []
    private(set) var count = 0

    init(members: Int) { self.members = members }

    @inline(__always) mutating func insert(_ member: Int32) {
        if members <= 1 << 20 {
            if bits.isEmpty { bits = [UInt64](repeating: 0, count: (members + 63) / 64) }
            let (word, bit) = (Int(member) >> 6, UInt64(1) << (UInt64(member) & 63))
            if bits[word] & bit == 0 {
                bits[word] |= bit
                count += 1
            }
        } else if set.insert(member).inserted {
            count += 1
        }
    }
}

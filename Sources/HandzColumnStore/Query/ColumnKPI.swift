import HandzAnalyticsCore
import HandzQuery

/// The KPIs of CH33 §5.2 on the column store: the rows of the measure's `ae` CTE read from the
/// chunks (`ScannedRows`), then the measure's template (`KPISQLBuilder`) computed in Swift on
/// integers — the same definitions, row for row; the tests hold every KPI to the SQL.
///
/// Per install or per user (CH33 §3.1; ``UserMap``).
public struct ColumnKPI {
    public let store: ColumnStore
    public let catalog: Catalog
    /// Each install's first-seen time (`install_first_seen`, issue 32 §6), for the cohort measures.
    public let firstSeen: InstallFirstSeenTimes

    public init(store: ColumnStore, catalog: Catalog, firstSeen: InstallFirstSeenTimes) {
        self.store = store
        self.catalog = catalog
        self.firstSeen = firstSeen
    }

    public static func supports(_ query: KPIQuery) -> Bool {
        query.source == .table
    }

    /// The `ae` flags as bits.
    enum Bit {
        static let open: UInt32 = 1, target: UInt32 = 2, source: UInt32 = 4, population: UInt32 = 8, exclude: UInt32 = 16
    }

    public func run(_ query: KPIQuery) throws -> KPIReport {
        precondition(Self.supports(query), "ColumnKPI.run on a KPI it does not answer")
        // The same checks, and so the same errors, as the SQL (range, whole weeks, properties).
        _ = try KPISQLBuilder(catalog: catalog, dialect: .sqlite).sql(query)
        if query.kpi.measure == .sessionsWithoutReport { return try sessionsWithoutReport(query) }
        let kpi = query.kpi
        let rows = try ScannedRows(request(query), store: store)
        let (f, t) = (query.fromMs, query.toMs)
        let window = (kpi.windowSeconds ?? 0) * 1000
        switch kpi.measure {
        case .cohortConversion, .cohortReturn:
            let cohort = try Cohort(rows, firstSeen: firstSeen, store: store, users: query.actor == .user ? try store.userMap() : nil)
            let dayMs: Int64 = 86_400_000
            let windowEnd = kpi.measure == .cohortReturn ? dayMs * ((kpi.day ?? 0) + 1) : window
            var done = 0 as Int64, leftOut = 0 as Int64
            var complete = [Bool](repeating: false, count: rows.installs.count)
            for actor in 0..<rows.installs.count {
                guard let start = cohort.start[actor], start >= f, start < t else { continue }
                complete[actor] = cohort.dataEnd.map { start + windowEnd <= $0 } ?? false
                if complete[actor] { done += 1 } else { leftOut += 1 }
            }
            var hit = [Bool](repeating: false, count: rows.installs.count)
            for row in 0..<rows.count where rows.has(row, Bit.target) {
                let actor = Int(rows.actor[row])
                guard complete[actor], let start = cohort.start[actor] else { continue }
                let time = rows.time[row]
                let inside = kpi.measure == .cohortReturn
                    ? time >= start + dayMs * (kpi.day ?? 0) && time < start + dayMs * ((kpi.day ?? 0) + 1)
                    : time >= start && time <= start + window
                if inside { hit[actor] = true }
            }
            return KPIReport(query: query, rows: .ratio(numerator: Int64(hit.lazy.filter { $0 }.count), denominator: done), leftOut: leftOut)
        case .cohortMedianTime:
            let cohort = try Cohort(rows, firstSeen: firstSeen, store: store, users: query.actor == .user ? try store.userMap() : nil)
            var first = [Int64?](repeating: nil, count: rows.installs.count)
            for row in 0..<rows.count where rows.has(row, Bit.target) {
                let actor = Int(rows.actor[row]), time = rows.time[row]
                guard let start = cohort.start[actor], start >= f, start < t, time >= start else { continue }
                if first[actor].map({ time < $0 }) ?? true { first[actor] = time }
            }
            let delays = (0..<first.count).compactMap { actor in first[actor].map { $0 - cohort.start[actor]! } }
            return KPIReport(query: query, rows: .median(milliseconds: Median.lower(delays), actors: Int64(delays.count)))
        case .everyWeek:
            let weeks = actorWeeks(rows, Bit.target, query)
            var perActor: [Int32: Int64] = [:]
            for key in weeks { perActor[Int32(truncatingIfNeeded: key >> 32), default: 0] += 1 }
            if kpi.population.isEmpty {
                return KPIReport(query: query, rows: .ratio(numerator: Int64(perActor.values.filter { $0 == query.wholeWeeks }.count), denominator: Int64(perActor.count)))
            }
            var active = Set<Int32>()
            for row in 0..<rows.count where rows.has(row, Bit.population) && rows.time[row] >= f && rows.time[row] < query.weeksEndMs { active.insert(rows.actor[row]) }
            return KPIReport(query: query, rows: .ratio(numerator: Int64(active.filter { perActor[$0] == query.wholeWeeks }.count), denominator: Int64(active.count)))
        case .weeklyDistinctPerActive:
            let active = actorWeeks(rows, Bit.open, query)
            var distinct = Set<ActorWeekValue>()
            for row in 0..<rows.count where rows.has(row, Bit.target) && rows.texts[0][row] != 0 {
                guard let week = week(rows.time[row], query) else { continue }
                let actorWeek = Int64(rows.actor[row]) << 32 | week
                if active.contains(actorWeek) { distinct.insert(ActorWeekValue(actorWeek: actorWeek, value: rows.texts[0][row])) }
            }
            return KPIReport(query: query, rows: .ratio(numerator: Int64(distinct.count), denominator: Int64(active.count)))
        case .weeklySumPerActor:
            let population = actorWeeks(rows, Bit.target, query)
            // `amount`: each sum's property on its event's rows.
            let sumColumn = Dictionary(kpi.sums.enumerated().map { ($1.event, $0) }, uniquingKeysWith: { first, _ in first })
            let columnOfEvent = rows.eventNames.map { sumColumn[$0] }
            var total: Int64 = 0
            for row in 0..<rows.count {
                guard let column = columnOfEvent[Int(rows.event[row])], let amount = rows.integers[column][row],
                      let week = week(rows.time[row], query), population.contains(Int64(rows.actor[row]) << 32 | week) else { continue }
                total += amount
            }
            return KPIReport(query: query, rows: .ratio(numerator: total, denominator: Int64(population.count)))
        case .latestValueDistribution:
            var latest: [ActorWeekValue: (time: Int64, id: UUIDWords, value: Int64?)] = [:]
            for row in 0..<rows.count where rows.has(row, Bit.target) && rows.texts[0][row] != 0 && rows.time[row] >= f && rows.time[row] < t {
                let key = ActorWeekValue(actorWeek: Int64(rows.actor[row]), value: rows.texts[0][row])
                let candidate = (time: rows.time[row], id: rows.ids[row], value: rows.integers[0][row])
                if let known = latest[key], (known.time, known.id) > (candidate.time, candidate.id) { continue }
                latest[key] = candidate
            }
            var counts: [Int64?: Int64] = [:]
            for entry in latest.values { counts[entry.value, default: 0] += 1 }
            // ORDER BY v: SQLite puts NULL first.
            let buckets = counts.map { KPIBucket(value: $0.key, count: $0.value) }.sorted { ($0.value ?? .min, $0.value == nil ? 0 : 1) < ($1.value ?? .min, $1.value == nil ? 0 : 1) }
            return KPIReport(query: query, rows: .distribution(buckets))
        case .weeklyActorShare:
            let active = actorWeeks(rows, Bit.open, query)
            let reached = actorWeeks(rows, Bit.target, query)
            return KPIReport(query: query, rows: .ratio(numerator: Int64(reached.intersection(active).count), denominator: Int64(active.count)))
        case .followedBy:
            let keyed = kpi.key != nil
            var starts: [ActorWeekValue: Int64] = [:]
            for row in 0..<rows.count where rows.has(row, Bit.source) && rows.time[row] >= f && rows.time[row] < t {
                let value = keyed ? rows.texts[0][row] : 0
                if keyed && value == 0 { continue }
                let key = ActorWeekValue(actorWeek: Int64(rows.actor[row]), value: value)
                if starts[key].map({ rows.time[row] < $0 }) ?? true { starts[key] = rows.time[row] }
            }
            var hits = Set<ActorWeekValue>()
            for row in 0..<rows.count where rows.has(row, Bit.target) {
                let key = ActorWeekValue(actorWeek: Int64(rows.actor[row]), value: keyed ? rows.texts[0][row] : 0)
                if let start = starts[key], rows.time[row] >= start, rows.time[row] <= start + window { hits.insert(key) }
            }
            return KPIReport(query: query, rows: .ratio(numerator: Int64(hits.count), denominator: Int64(starts.count)))
        case .actorShare:
            var hit: [Int32: Bool] = [:]
            for row in 0..<rows.count where (rows.has(row, Bit.target) || rows.has(row, Bit.population)) && rows.time[row] >= f && rows.time[row] < t {
                hit[rows.actor[row], default: false] = hit[rows.actor[row], default: false] || rows.has(row, Bit.target)
            }
            return KPIReport(query: query, rows: .ratio(numerator: Int64(hit.values.filter { $0 }.count), denominator: Int64(hit.count)))
        case .eventsPerActive:
            var events: Int64 = 0
            var active = Set<Int32>()
            for row in 0..<rows.count where rows.time[row] >= f && rows.time[row] < t {
                if rows.has(row, Bit.target) { events += 1 }
                if rows.has(row, Bit.open) { active.insert(rows.actor[row]) }
            }
            return KPIReport(query: query, rows: .ratio(numerator: events, denominator: Int64(active.count)))
        case .sessionsWithout:
            // Per session (the NULL session one group, as SQL's GROUP BY makes it): has a
            // population event, has an excluded one.
            var flags: [Int32: (population: Bool, bad: Bool)] = [:]
            for row in 0..<rows.count where rows.time[row] >= f && rows.time[row] < t {
                var known = flags[rows.session[row], default: (false, false)]
                known.population = known.population || rows.has(row, Bit.population)
                known.bad = known.bad || rows.has(row, Bit.exclude)
                flags[rows.session[row]] = known
            }
            let counted = flags.values.filter(\.population)
            return KPIReport(query: query, rows: .ratio(numerator: Int64(counted.filter { !$0.bad }.count), denominator: Int64(counted.count)))
        case .sessionsWithoutReport:
            preconditionFailure("answered above")
        }
    }

    /// The measure's rows: its events (every event for `sessions_without` without a population),
    /// in the range it reads (all time for the cohort measures), flagged as `ae` flags them.
    func request(_ query: KPIQuery) -> ScanRequest {
        let kpi = query.kpi
        var request = ScanRequest()
        request.actor = query.actor
        request.matchers.add(bit: Bit.open, events: ["app_open"], filters: [], catalog: catalog, strings: store.strings)
        for (bit, match) in [(Bit.target, kpi.target), (Bit.source, kpi.source), (Bit.exclude, kpi.exclude)] {
            if let match { request.matchers.add(bit: bit, events: match.events, filters: match.filters, catalog: catalog, strings: store.strings) }
        }
        for match in kpi.population {
            request.matchers.add(bit: Bit.population, events: match.events, filters: match.filters, catalog: catalog, strings: store.strings)
        }
        switch kpi.measure {
        case .sessionsWithout where kpi.population.isEmpty:
            request.matchers.add(bit: Bit.population, events: [], filters: [], catalog: catalog, strings: store.strings)
            request.events = nil
        default:
            var names = KPISQLBuilder.readsActiveEvent(kpi.measure) ? ["app_open"] : []
            for match in [kpi.target, kpi.source, kpi.exclude].compactMap({ $0 }) + kpi.population { names += match.events }
            names += kpi.sums.map(\.event)
            request.events = Set(names)
        }
        switch kpi.measure {
        case .cohortConversion, .cohortMedianTime, .cohortReturn: break
        default:
            request.fromMs = query.fromMs
            request.toMs = query.toMs &+ (kpi.windowSeconds ?? 0) * 1000
        }
        switch kpi.measure {
        case .weeklyDistinctPerActive: request.textColumns = [kpi.property ?? ""]
        case .latestValueDistribution:
            request.textColumns = [kpi.key ?? ""]
            request.integerColumns = [kpi.property ?? ""]
            request.withIDs = true
        case .followedBy: request.textColumns = kpi.key.map { [$0] } ?? []
        case .weeklySumPerActor: request.integerColumns = kpi.sums.map(\.property)
        case .sessionsWithout: request.withSessions = true
        default: break
        }
        return request
    }

    /// The whole week of `time` counted from `from`, nil outside the whole weeks.
    func week(_ time: Int64, _ query: KPIQuery) -> Int64? {
        time >= query.fromMs && time < query.weeksEndMs ? (time - query.fromMs) / KPIQuery.weekMs : nil
    }

    /// The distinct (actor, week) pairs, as actor << 32 | week, of the rows with `bit` in the whole weeks.
    func actorWeeks(_ rows: ScannedRows, _ bit: UInt32, _ query: KPIQuery) -> Set<Int64> {
        var pairs = Set<Int64>()
        for row in 0..<rows.count where rows.has(row, bit) {
            if let week = week(rows.time[row], query) { pairs.insert(Int64(rows.actor[row]) << 32 | week) }
        }
        return pairs
    }

    /// A pair of an actor (or actor-week) and a text key.
    struct ActorWeekValue: Hashable {
        var actorWeek: Int64
        var value: UInt64
    }

    /// Install time for the cohort measures (`KPISQLBuilder.cohortCTEs`): each actor's first
    /// `app_open` (`fo`), unless its first-seen time is earlier (its first `app_open` is gone:
    /// then it is in no cohort, issue 32 §6); and the data's end, the latest time among the rows.
    struct Cohort {
        var start: [Int64?]
        var dataEnd: Int64?

        /// `users`: per user, the earliest first-seen time of the installs it resolves from.
        init(_ rows: ScannedRows, firstSeen: InstallFirstSeenTimes, store: ColumnStore, users: UserMap?) throws {
            var firstOpen = [Int64?](repeating: nil, count: rows.installs.count)
            var end: Int64?
            for row in 0..<rows.count {
                let time = rows.time[row]
                if end.map({ time > $0 }) ?? true { end = time }
                guard rows.has(row, Bit.open) else { continue }
                let actor = Int(rows.actor[row])
                if firstOpen[actor].map({ time < $0 }) ?? true { firstOpen[actor] = time }
            }
            dataEnd = end
            let firstSeen = try firstSeen.table()
            if !firstSeen.isEmpty {
                let dictionaries = try firstSeen.needsUUIDs ? store.uuidDictionary() : store.strings
                // A user's time: the earliest of its installs' (the SQL joins the table's rows to `um`).
                var byUser: [UInt64: Int64] = [:]
                for (install, user) in users?.userOfInstall ?? [:] {
                    if let seen = firstSeen.time(key: install, store.textKeys, dictionaries) { byUser[user] = min(byUser[user] ?? .max, seen) }
                }
                for actor in 0..<firstOpen.count {
                    guard let open = firstOpen[actor] else { continue }
                    let key = rows.installs.keys[actor]
                    // An install that resolves to a user is not its own actor.
                    let own = users?.userOfInstall[key] == nil ? firstSeen.time(key: key, store.textKeys, dictionaries) : nil
                    guard let seen = [own, byUser[key]].compactMap({ $0 }).min() else { continue }
                    if seen < open { firstOpen[actor] = nil }
                }
            }
            start = firstOpen
        }
    }
}

import HandzAnalyticsCore
import HandzQuery

/// A funnel run on the column store: the funnel's chunks (its events' names, the days of
/// [from, to + window)) read column by column, each row's steps matched on dictionary codes, and
/// the rows handed to `FunnelEvaluator` (HandzQuery) — the walk the SQLite path uses, so the numbers are the
/// same by construction where the rows are; the tests hold the two together.
///
/// Answers every funnel per install: single-actor ones (F0, F1, F3, ad-hoc funnels, breakdowns),
/// a success on any event (F1's: read, after the steps, only in each install's success window,
/// the way the SQLite walk reads it), keyed chains (F4: the chain key's text per row), funnels
/// across people (F2: each link property's text per row) and a success counted once per value
/// (`first_by`: the first success of each (install, value) over all stored data, read before the
/// range). Ids reach the evaluator as ``TextKeys`` ("k" + key), which it only compares for
/// equality, as SQL compares their text. Per install or per user (``UserMap``).
public struct ColumnFunnel: Sendable {
    public let store: ColumnStore
    public let catalog: Catalog

    /// What strict order's day tables may take (`FunnelRows.DayGaps`; its tests set 0 to find
    /// the gaps by actor instead).
    var dayGapsBudgetBytes = FunnelRows.DayGaps.budgetBytes

    public init(store: ColumnStore, catalog: Catalog) {
        self.store = store
        self.catalog = catalog
    }

    public static func supports(_ query: FunnelQuery) -> Bool {
        query.source == .table
    }

    public func run(_ query: FunnelQuery) throws -> FunnelReport {
        precondition(Self.supports(query), "ColumnFunnel.run on a funnel it does not answer")
        // The same checks, and so the same errors, as the SQL (range, window, steps, breakdown).
        _ = try FunnelSQLBuilder(catalog: catalog, dialect: .sqlite).eventsSQL(query)
        let horizon = query.toMs &+ query.windowMs
        var matchers = RowMatchers()
        for (index, step) in query.funnel.steps.enumerated() {
            matchers.add(bit: UInt32(1) << UInt32(index), events: step.events, filters: step.filters, catalog: catalog, strings: store.strings)
        }
        if let success = query.funnel.successCondition {
            matchers.add(bit: UInt32(1) << UInt32(query.funnel.steps.count), events: success.events, filters: success.filters, catalog: catalog, strings: store.strings)
        }
        for (index, exclusion) in query.funnel.exclusions.enumerated() {
            matchers.add(bit: FunnelModes.exclusionBit(index, steps: query.funnel.steps.count), events: exclusion.events, filters: exclusion.filters, catalog: catalog, strings: store.strings)
        }
        // Strict order reads every event: any of them between two steps ends a chain.
        let strict = query.funnel.order == .strict
        let names = strict ? Set(store.manifest.chunks.map(\.event)) : matchers.eventNames
        let breakdownColumn = query.breakdown.map(RowMatchers.columnName)
        let funnel = query.funnel
        // The values the evaluator links or keys on, per row: each link property's text (across
        // people), or the chain key's (keyed: the property its event carries).
        let linkColumns = funnel.handoffIndex == nil ? [] : FunnelSQLBuilder.linkProperties(funnel).map(RowMatchers.columnName)
        let chainKey = funnel.chainKey.map { Dictionary($0.map { ($0.event, RowMatchers.columnName($0.property)) }, uniquingKeysWith: { first, _ in first }) }
        // Keyed: a later step needs the id its chain is keyed by (a missing id never links).
        let keyedSteps: [(bit: UInt32, column: String)] = chainKey == nil ? [] : funnel.steps.enumerated().compactMap { index, step in
            guard index > 0, let link = step.link else { return nil }
            return (UInt32(1) << UInt32(index), RowMatchers.columnName(link.property))
        }
        let successBit = UInt32(1) << UInt32(funnel.steps.count)
        let firsts = try funnel.successCondition.flatMap { success in try success.firstBy.map { try firstSuccesses(success, property: $0, before: horizon, actor: query.actor) } }

        let actorKeys = try ActorKeys(query.actor, store: store)
        var evaluator = FunnelEvaluator(query: query)
        // Each chunk's rows of the range, matched, on both cores; then gathered in chunk order,
        // day by day: an actor's rows then reach their place nearly in time order, where the
        // manifest's order (event by event) gave each actor one sorted run per event to merge by
        // insertion (a third of an F0 `--order strict` process, perf).
        let rowMatchers = matchers
        let chunks = store.chunks(events: names, fromMs: query.fromMs, toMs: horizon).sorted { ($0.day, $0.minTimeMs, $0.event, $0.file) < ($1.day, $1.minTimeMs, $1.event, $1.file) }
        let makePart = { @Sendable (entry: ColumnManifest.ChunkEntry) throws -> FunnelRows.Part in
            let read = try store.columns(entry)
            let chunk = read.chunk
            let installs = actorKeys.keys(try read.keys(ColumnName.installID, store.textKeys))
            let times = try read.times(ColumnName.eventTime)
            let ids = try read.ids()
            let (always, filtered) = try rowMatchers.plan(read, strings: store.strings)
            var part = FunnelRows.Part(labels: try breakdownColumn.map { try read.labels($0, dictionaries: store.strings) },
                                       values: try linkColumns.map { name throws(ColumnStoreError) in try read.textKeys(name, store.textKeys) },
                                       capacity: chunk.rows)
            if let chainKey { part.values = [try chainKey[chunk.eventName].map { name throws(ColumnStoreError) in try read.textKeys(name, store.textKeys) } ?? Array(repeating: 0, count: chunk.rows)] }
            let keyedChecks = try keyedSteps.map { step throws(ColumnStoreError) in (step.bit, try read.textKeys(step.column, store.textKeys)) }
            for row in 0..<chunk.rows {
                let time = times[row]
                guard time >= query.fromMs, time < horizon else { continue }
                var mask = always
                for (bit, checks) in filtered where checks.allSatisfy({ check in
                    let code = Int(check.codes[row])
                    return code < check.allowed.count && check.allowed[code]
                }) { mask |= bit }
                for (bit, keys) in keyedChecks where keys[row] == 0 { mask &= ~bit }
                if let firsts, mask & successBit != 0, !firsts.contains(ids[row]) { mask &= ~successBit }
                part.add(actorKey: installs[row], timeMs: time, eventID: ids[row], steps: mask, row: Int32(row))
            }
            part.sortByActor()
            return part
        }
        // Strict order per install: the chunks of events no step, success or exclusion names hold
        // only breakers, searched in place (`FunnelRows.collapsingBreakers(partChunks:…)`).
        let stepEvents = rowMatchers.eventNames
        let breakersApart = strict && query.actor == .install && linkColumns.isEmpty && chainKey == nil
        let partChunks = chunks.indices.filter { !breakersApart || stepEvents.contains(chunks[$0].event) }
        let breakerChunks = chunks.indices.filter { breakersApart && !stepEvents.contains(chunks[$0].event) }
        let parts = try ParallelWork.map(partChunks.map { chunks[$0] }, makePart)
        let rows = FunnelRows(parts: parts)
        if strict {
            let fromMs = query.fromMs
            let collapsed = try rows.collapsingBreakers(partChunks: partChunks, breakerChunks: breakerChunks, dayBudgetBytes: dayGapsBudgetBytes) { [store] chunk, matched in
                try Self.breakerCandidates(chunks[chunk], matched, store: store, fromMs: fromMs, horizon: horizon, breakdown: breakdownColumn)
            }
            if let collapsed {
                collapsed.hand(to: &evaluator)
            } else {
                FunnelRows(parts: parts + (try ParallelWork.map(breakerChunks.map { chunks[$0] }, makePart))).hand(to: &evaluator)
            }
        } else {
            rows.hand(to: &evaluator)
        }
        if let success = query.funnel.successCondition, success.events.isEmpty, !strict {
            try addSuccessOnAnyEvent(success, stepEvents: names, into: &evaluator)
        }
        return evaluator.report()
    }

    /// A breaker chunk's candidates (`FunnelRows.collapsingBreakers(partChunks:…)`): its rows of
    /// [from, horizon), in its own order (install, time, id), each the first of a run in the
    /// same gap of its install's matched rows; read from the decoded columns, the install's key
    /// from its codes in place.
    static func breakerCandidates(_ entry: ColumnManifest.ChunkEntry, _ matched: FunnelRows.MatchedStamps, store: ColumnStore,
                                  fromMs: Int64, horizon: Int64, breakdown: String?) throws(ColumnStoreError) -> FunnelRows.BreakerCandidates {
        let read = try store.columns(entry)
        let installs = try read.keyColumn(ColumnName.installID, store.textKeys)
        let times = try read.times(ColumnName.eventTime)
        let ids = try read.ids()
        var found = FunnelRows.BreakerCandidates()
        var rowsFound: [Int] = []
        var lastGap = -1
        var cursor = FunnelRows.GapCursor()
        for row in 0..<read.chunk.rows where times[row] >= fromMs && times[row] < horizon {
            let stamp = FunnelRows.Stamp(timeMs: times[row], id: ids[row])
            guard let gap = cursor.gap(key: installs[row], stamp: stamp, in: matched), gap != lastGap else { continue }
            lastGap = gap
            found.append(gap: gap, key: installs[row], timeMs: stamp.timeMs, id: stamp.id)
            rowsFound.append(row)
        }
        if let breakdown, !rowsFound.isEmpty {
            let labels = try read.labels(breakdown, dictionaries: store.strings)
            found.labels = rowsFound.map { labels[$0] }
        }
        return found
    }

    /// `first_by` (F2: a flow's first save): the ids of the success events that are the first, by
    /// (time, id), of their install and value over all stored data before `horizon` — the SQL's
    /// `ROW_NUMBER() OVER (PARTITION BY actor, sx0, fv ORDER BY t, id) = 1` on rows that match
    /// the success and carry the value.
    func firstSuccesses(_ success: FunnelSuccess, property: String, before horizon: Int64, actor: ActorKind) throws -> Set<UUIDWords> {
        let actorKeys = try ActorKeys(actor, store: store)
        var matchers = RowMatchers()
        matchers.add(bit: 1, events: success.events, filters: success.filters, catalog: catalog, strings: store.strings)
        let column = RowMatchers.columnName(property)
        struct InstallValue: Hashable { var install: UInt64; var value: UInt64 }
        var first: [InstallValue: (time: Int64, id: UUIDWords)] = [:]
        for entry in store.chunks(events: Set(success.events), fromMs: .min, toMs: horizon) {
            let read = try store.columns(entry)
            let masks = try matchers.masks(read, strings: store.strings)
            let values = try read.textKeys(column, store.textKeys)
            let installs = actorKeys.keys(try read.keys(ColumnName.installID, store.textKeys))
            let times = try read.times(ColumnName.eventTime)
            let ids = try read.ids()
            for row in 0..<read.chunk.rows where masks[row] != 0 && values[row] != 0 && times[row] < horizon {
                let key = InstallValue(install: installs[row], value: values[row])
                if let known = first[key], (known.time, known.id) < (times[row], ids[row]) { continue }
                first[key] = (times[row], ids[row])
            }
        }
        return Set(first.values.map(\.id))
    }

    /// F1's success, "an event after signup_success that says user_state = free", on events that
    /// are no step's: only in each install's window where it can change the report
    /// (`FunnelEvaluator.successSearchWindows()`), added with the success bit alone — what the
    /// SQLite walk reads by index, here by the chunks' install order: a day's chunk is read only
    /// when some window overlaps that day, and its install-ordered rows are merged with the
    /// day's windows in key order (no lookup per row in a table indexed by UUID code, which
    /// missed the cache on most of F1's 7 M rows at 100,000 installs).
    func addSuccessOnAnyEvent(_ success: FunnelSuccess, stepEvents: Set<String>, into evaluator: inout FunnelEvaluator) throws {
        let windows = evaluator.successSearchWindows()
        guard !windows.isEmpty else { return }
        // Each window by its actor's text key (the actor names FunnelRows gave: "k" + key), in key
        // order. Listed under every UTC day it overlaps while the windows are a few days long (a
        // day's chunks then meet only that day's windows); longer windows (a wide `--window`,
        // the pages' 90-day override) share one list for every day, so memory stays one entry
        // per window whatever the window.
        struct Window { var key: UInt64; var fromMs: Int64; var throughMs: Int64; var actor: Int32 }
        var all: [Window] = []
        for window in windows {
            guard let key = UInt64(window.actor.dropFirst()) else { continue }
            all.append(Window(key: key, fromMs: window.fromMs, throughMs: window.throughMs, actor: window.actorNumber))
        }
        all.sort { $0.key < $1.key }
        let firstDay = LogSealer.day(of: all.map(\.fromMs).min() ?? 0), lastDay = LogSealer.day(of: all.map(\.throughMs).max() ?? 0)
        let dayEntries = all.reduce(0) { $0 + Int(LogSealer.day(of: $1.throughMs) - LogSealer.day(of: $1.fromMs) + 1) }
        var byDay: [Int64: [Window]] = [:]
        if dayEntries <= 16 * all.count {
            for window in all {
                for day in LogSealer.day(of: window.fromMs)...LogSealer.day(of: window.throughMs) { byDay[day, default: []].append(window) }
            }
        }
        let perDay = !byDay.isEmpty
        func windowList(on day: Int64) -> [Window]? {
            perDay ? byDay[day] : (firstDay...lastDay).contains(day) ? all : nil
        }
        let successBit = UInt32(1) << UInt32(evaluator.query.funnel.steps.count)
        var matchers = RowMatchers()
        matchers.add(bit: successBit, events: [], filters: success.filters, catalog: catalog, strings: store.strings)
        let actorKeys = try ActorKeys(evaluator.query.actor, store: store)
        let chunks = store.manifest.chunks.filter { !stepEvents.contains($0.event) && windowList(on: $0.day) != nil }
        let rowMatchers = matchers
        let days = Dictionary(uniqueKeysWithValues: Set(chunks.map(\.day)).map { ($0, windowList(on: $0)!) })
        // Per chunk, on both cores: the (actor, time, id) of its rows that are a success in a window.
        let found = try ParallelWork.map(chunks) { entry throws -> [(actor: Int32, timeMs: Int64, id: UUIDWords)] in
            let dayWindows = days[entry.day]!
            let read = try store.columns(entry)
            let (always, filtered) = try rowMatchers.plan(read, strings: store.strings)
            guard always != 0 || !filtered.isEmpty else { return [] }
            let keys = actorKeys.keys(try read.keys(ColumnName.installID, store.textKeys))
            let times = try read.times(ColumnName.eventTime)
            var ids: [UUIDWords]?
            var successes: [(actor: Int32, timeMs: Int64, id: UUIDWords)] = []
            func consider(_ row: Int, _ window: Window) throws {
                guard times[row] >= window.fromMs, times[row] <= window.throughMs,
                      always != 0 || filtered[0].checks.allSatisfy({ Int($0.codes[row]) < $0.allowed.count && $0.allowed[Int($0.codes[row])] }) else { return }
                if ids == nil { ids = try read.ids() }
                successes.append((window.actor, times[row], ids![row]))
            }
            if keys.indices.dropFirst().allSatisfy({ keys[$0 - 1] <= keys[$0] }) {
                // The chunk's rows are in install order (a UUID install column, per install):
                // walk them beside the day's windows, a merge of two sorted lists.
                var (row, next) = (0, 0)
                while row < keys.count && next < dayWindows.count {
                    if keys[row] < dayWindows[next].key { row += 1 } else if keys[row] > dayWindows[next].key { next += 1 } else {
                        try consider(row, dayWindows[next])
                        row += 1
                    }
                }
            } else {
                // Text install ids, or users (`--actor user`): by a table of the day's windows.
                let index = Dictionary(dayWindows.indices.map { (dayWindows[$0].key, $0) }, uniquingKeysWith: { first, _ in first })
                for row in keys.indices { if let found = index[keys[row]] { try consider(row, dayWindows[found]) } }
            }
            return successes
        }
        for successes in found {
            for success in successes { evaluator.add(actorNumber: success.actor, timeMs: success.timeMs, eventID: success.id, steps: successBit, breakdown: nil) }
        }
    }
}

/// The funnel's rows as the chunks give them, handed to `FunnelEvaluator` grouped by actor,
/// each actor's rows in the total order (time, id), actors numbered in the order of their keys.
///
/// Each chunk is sorted by install, then time, then event id, so each worker's ``Part`` is a
/// run already in (actor key, time, id) order (a part that is not — text install ids, users of
/// `--actor user` — is sorted by its worker first, ``Part/sortByActor()``). UUID codes are
/// counted into their actor's place (``KeyRanks``: a bitmap of the codes present ranks them);
/// other keys take a merge of the parts' runs through a heap of their heads. Either way every
/// row is read once from its own part, in order: no copy of every row into one table, no sort
/// of the whole by key, and no lookup by row in arrays gathered from all chunks (each was a
/// cache miss: those were a quarter of an F0 process, perf).
struct FunnelRows {
    /// One chunk's rows of the funnel, as a worker matched them.
    struct Part {
        var keys: [UInt64] = []
        var times: [Int64] = []
        var ids: [UUIDWords] = []
        var steps: [UInt32] = []
        /// Each row's row in the chunk, for its breakdown label and linked values.
        var rows: [Int32] = []
        var labels: [String?]?
        var values: [[UInt64]]

        init(labels: [String?]?, values: [[UInt64]], capacity: Int) {
            (self.labels, self.values) = (labels, values)
            keys.reserveCapacity(capacity)
            times.reserveCapacity(capacity)
            ids.reserveCapacity(capacity)
            steps.reserveCapacity(capacity)
            rows.reserveCapacity(capacity)
        }

        mutating func add(actorKey: UInt64, timeMs: Int64, eventID: UUIDWords, steps mask: UInt32, row: Int32) {
            keys.append(actorKey)
            times.append(timeMs)
            ids.append(eventID)
            steps.append(mask)
            rows.append(row)
        }

        /// Whether row `a` comes before row `b` in (actor key, time, id) order.
        @inline(__always) func before(_ a: Int, _ b: Int) -> Bool {
            if keys[a] != keys[b] { return keys[a] < keys[b] }
            if times[a] != times[b] { return times[a] < times[b] }
            return ids[a] < ids[b]
        }

        /// Puts the rows in (actor key, time, id) order when they are not already (one pass when
        /// they are: the chunk's own order).
        mutating func sortByActor() {
            guard keys.indices.dropFirst().contains(where: { before($0, $0 - 1) }) else { return }
            let order = keys.indices.sorted { before($0, $1) }
            keys = order.map { keys[$0] }
            times = order.map { times[$0] }
            ids = order.map { ids[$0] }
            steps = order.map { steps[$0] }
            rows = order.map { rows[$0] }
        }
    }

    /// One part's next row: the heap's entry, with what the evaluator takes of it held inline
    /// (the loop then reads each part's arrays only to load its next row).
    private struct Head {
        var key: UInt64
        var timeMs: Int64
        var id: UUIDWords
        var steps: UInt32
        var part: Int32
        var row: Int32

        @inline(__always) static func < (a: Head, b: Head) -> Bool {
            if a.key != b.key { return a.key < b.key }
            if a.timeMs != b.timeMs { return a.timeMs < b.timeMs }
            return a.id < b.id
        }
    }

    let parts: [Part]

    @inline(__always) private func head(part: Int, row: Int) -> Head {
        Head(key: parts[part].keys[row], timeMs: parts[part].times[row], id: parts[part].ids[row],
             steps: parts[part].steps[row], part: Int32(part), row: Int32(row))
    }

    /// Adds every row to `evaluator`, in (actor key, time, id) order: each actor's rows together
    /// and in the total order, so the evaluator walks them as they are (``FunnelEvaluator``
    /// takes rows added in that order without sorting them). Actors are named "k" + key, as
    /// the evaluator and ``ColumnFunnel/addSuccessOnAnyEvent`` know them.
    func hand(to evaluator: inout FunnelEvaluator) {
        let total = parts.reduce(0) { $0 + $1.keys.count }
        // Each part is in key order, so its last key is its largest.
        let largestKey = parts.map { $0.keys.last ?? 0 }.max() ?? 0
        if largestKey < Self.largestCountedKey {
            handByCounting(to: &evaluator, rows: total, largestKey: largestKey)
        } else {
            handByMerging(to: &evaluator)
        }
    }

    /// Keys below this are counted into place (``KeyRanks``); text keys are merged.
    static let largestCountedKey = KeyRanks.limit

    /// A labelled row on its way to the evaluator, placed by its actor's rank: its part and its
    /// row in the part, where its breakdown label and linked values are read when it is added.
    private struct Placed: Sendable {
        var timeMs: Int64
        var id: UUIDWords
        var steps: UInt32
        var part: Int32
        var row: Int32

        @inline(__always) static func < (a: Placed, b: Placed) -> Bool {
            a.timeMs != b.timeMs ? a.timeMs < b.timeMs : a.id < b.id
        }
    }

    /// A counting sort by actor: a bitmap of the keys present gives each actor its rank in key
    /// order (the bits below it: a count per 64-bit word, then one popcount), the rows are
    /// counted per rank and copied to their actor's place, and each actor's few rows are put in
    /// (time, id) order where they are. The bitmap is one bit per UUID code (46 KiB at 20,000
    /// installs), so ranking stays in the cache, unlike a table of numbers indexed by code; no
    /// comparison of keys, unlike a merge of the parts (a heap of 150 runs: 100 ns a row, most
    /// of it mispredicted branches and loads, perf). Without breakdown labels or linked values
    /// the rows are placed as the evaluator's own events and handed over whole
    /// (`FunnelEvaluator.adopt`): no second copy.
    private func handByCounting(to evaluator: inout FunnelEvaluator, rows total: Int, largestKey: UInt64) {
        let (ranks, starts) = actorPlaces(largestKey: largestKey)
        let labelled = parts.contains { $0.labels != nil || !$0.values.isEmpty }
        guard labelled else {
            let parts = self.parts
            let events = place(ranks, starts: starts, total: total,
                               row: { part, row, actor in
                                   FunnelEvaluator.Event(actor: Int32(actor), timeMs: parts[part].times[row], eventID: parts[part].ids[row], steps: parts[part].steps[row])
                               },
                               before: FunnelEvaluator.Event.before)
            evaluator.adopt(actorNames: ranks.keys.map { "k\($0)" }, events: events)
            return
        }
        evaluator.reserveCapacity(total)
        let parts = self.parts
        let placed = place(ranks, starts: starts, total: total,
                           row: { part, row, _ in
                               Placed(timeMs: parts[part].times[row], id: parts[part].ids[row], steps: parts[part].steps[row], part: Int32(part), row: Int32(row))
                           },
                           before: { $0 < $1 })
        for actor in ranks.keys.indices {
            let number = evaluator.newActorNumber("k\(ranks.keys[actor])")
            for row in placed[starts[actor]..<starts[actor + 1]] {
                let (part, place) = (Int(row.part), Int(parts[Int(row.part)].rows[Int(row.row)]))
                evaluator.add(actorNumber: number, timeMs: row.timeMs, eventID: row.id, steps: row.steps,
                              breakdown: parts[part].labels?[place], values: parts[part].values.map { $0[place] == 0 ? nil : "k\($0[place])" })
            }
        }
    }

    /// Each actor's rank in key order, and where its rows start once placed by rank (one more
    /// entry: the total): the counting half of ``handByCounting(to:rows:largestKey:)``.
    func actorPlaces(largestKey: UInt64) -> (ranks: KeyRanks, starts: [Int]) {
        let ranks = KeyRanks(parts.lazy.map(\.keys), largestKey: largestKey)
        var starts = [Int](repeating: 0, count: ranks.keys.count + 1)
        for part in parts {
            for key in part.keys { starts[ranks.rank(key) + 1] += 1 }
        }
        for actor in ranks.keys.indices { starts[actor + 1] += starts[actor] }
        return (ranks, starts)
    }

    /// Every row copied to its actor's place (`starts`), each actor's rows then sorted by
    /// `before`, on both cores: the actors split in two runs of about equal rows, and each part's
    /// rows of a run a contiguous range of it (a part is in key order), found by binary search.
    /// The runs write disjoint places of one array.
    func place<Row: Sendable>(_ ranks: KeyRanks, starts: [Int], total: Int,
                                      row make: @escaping @Sendable (_ part: Int, _ row: Int, _ actor: Int) -> Row,
                                      before: @escaping @Sendable (Row, Row) -> Bool) -> [Row] {
        let actors = ranks.keys.count
        let middle = min(starts.firstIndex { $0 >= total / 2 } ?? actors, actors)
        // Each part's first row of the second run: its first key at or past the middle actor's.
        let splits = parts.map { part -> Int in
            guard middle < actors else { return part.keys.count }
            let key = ranks.keys[middle]
            var (low, high) = (0, part.keys.count)
            while low < high {
                let mid = (low + high) / 2
                if part.keys[mid] < key { low = mid + 1 } else { high = mid }
            }
            return low
        }
        let parts = self.parts
        return [Row](unsafeUninitializedCapacity: total) { buffer, initialized in
            nonisolated(unsafe) let base = buffer.baseAddress!
            let runs = [(actors: 0..<middle, second: false), (actors: middle..<actors, second: true)]
            _ = ParallelWork.map(runs) { run in
                var next = starts
                for part in parts.indices {
                    let rows = run.second ? splits[part]..<parts[part].keys.count : 0..<splits[part]
                    for row in rows {
                        let actor = ranks.rank(parts[part].keys[row])
                        (base + next[actor]).initialize(to: make(part, row, actor))
                        next[actor] += 1
                    }
                }
                // Each actor's rows came part by part; put them in the total order (a few rows
                // each: an insertion sort, no work when already in order).
                for actor in run.actors where starts[actor + 1] - starts[actor] > 1 {
                    for index in (starts[actor] + 1)..<starts[actor + 1] {
                        let moving = base[index]
                        var hole = index
                        while hole > starts[actor] && before(moving, base[hole - 1]) {
                            base[hole] = base[hole - 1]
                            hole -= 1
                        }
                        base[hole] = moving
                    }
                }
            }
            initialized = total
        }
    }

    /// A merge of the parts through a heap of their heads, for keys too large to count (text
    /// ids, users): each row read once from its own part, in order.
    private func handByMerging(to evaluator: inout FunnelEvaluator) {
        evaluator.reserveCapacity(parts.reduce(0) { $0 + $1.keys.count })
        let labelled = parts.contains { $0.labels != nil || !$0.values.isEmpty }
        var heap: [Head] = []
        heap.reserveCapacity(parts.count)
        for index in parts.indices where !parts[index].keys.isEmpty { heap.append(head(part: index, row: 0)) }
        // Heapify, then take the least head and replace it by its part's next row.
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(&heap, from: index) }
        var actor: Int32 = -1
        var actorKey: UInt64 = 0
        while let least = heap.first {
            if actor < 0 || least.key != actorKey {
                actor = evaluator.newActorNumber("k\(least.key)")
                actorKey = least.key
            }
            let (part, row) = (Int(least.part), Int(least.row))
            if labelled {
                let place = Int(parts[part].rows[row])
                evaluator.add(actorNumber: actor, timeMs: least.timeMs, eventID: least.id, steps: least.steps,
                              breakdown: parts[part].labels?[place],
                              values: parts[part].values.map { $0[place] == 0 ? nil : "k\($0[place])" })
            } else {
                evaluator.add(actorNumber: actor, timeMs: least.timeMs, eventID: least.id, steps: least.steps, breakdown: nil)
            }
            if row + 1 < parts[part].keys.count {
                heap[0] = head(part: part, row: row + 1)
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if heap.count > 1 { siftDown(&heap, from: 0) }
        }
    }

    @inline(__always) private func siftDown(_ heap: inout [Head], from start: Int) {
        var index = start
        let count = heap.count
        while true {
            let left = 2 * index + 1
            guard left < count else { return }
            var least = left
            if left + 1 < count && heap[left + 1] < heap[left] { least = left + 1 }
            guard heap[least] < heap[index] else { return }
            heap.swapAt(least, index)
            index = least
        }
    }
}

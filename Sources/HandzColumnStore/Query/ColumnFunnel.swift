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
        let names = matchers.eventNames
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
        // Each chunk's rows of the range, matched, on both cores; then gathered in chunk order.
        let rowMatchers = matchers
        let parts = try ParallelWork.map(store.chunks(events: names, fromMs: query.fromMs, toMs: horizon)) { entry throws in
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
            return part
        }
        var rows = FunnelRows(reserving: parts.reduce(0) { $0 + $1.keys.count })
        for part in parts { rows.add(part) }
        rows.hand(to: &evaluator)
        if let success = query.funnel.successCondition, success.events.isEmpty {
            try addSuccessOnAnyEvent(success, stepEvents: names, into: &evaluator)
        }
        return evaluator.report()
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

/// The funnel's rows as the chunks give them, then handed to `FunnelEvaluator` grouped by actor.
///
/// Each chunk is sorted by install, so the rows arrive as one sorted run per chunk; sorting
/// (actor key, row) pairs packed in one word merges those runs (the standard library's sort
/// finds and merges runs), and actors are numbered in key order with no table indexed by key.
/// Such a table, indexed by UUID code, spans every id of the store (installs, sessions, flows:
/// megabytes), and its lookups missed the cache on most rows: a quarter of F0's time at 100,000
/// installs (perf). Keys of 2³² and over (text, users of `--actor user`) take a hash table.
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
    }

    var keys: [UInt64] = []
    var times: [Int64] = []
    var ids: [UUIDWords] = []
    var steps: [UInt32] = []
    /// The chunk and row each row came from, for its breakdown label and linked values.
    var places: [(chunk: Int32, row: Int32)] = []
    var chunkLabels: [[String?]?] = []
    var chunkValues: [[[UInt64]]] = []

    /// Room for `rows` rows, so gathering the parts copies each row once (growing the arrays
    /// part by part copied them again at every doubling: 7% of F0, perf).
    init(reserving rows: Int) {
        keys.reserveCapacity(rows)
        times.reserveCapacity(rows)
        ids.reserveCapacity(rows)
        steps.reserveCapacity(rows)
        places.reserveCapacity(rows)
    }

    mutating func add(_ part: Part) {
        let chunk = Int32(chunkLabels.count)
        chunkLabels.append(part.labels)
        chunkValues.append(part.values)
        keys += part.keys
        times += part.times
        ids += part.ids
        steps += part.steps
        for row in part.rows { places.append((chunk, row)) }
    }

    /// Adds every row to `evaluator`, actors numbered in the order of their keys ("k" + key, as
    /// the evaluator knows them), each actor's rows together.
    func hand(to evaluator: inout FunnelEvaluator) {
        var actorOf = [Int32](repeating: 0, count: keys.count)
        let order: [Int]
        if keys.count < 1 << 32, keys.allSatisfy({ $0 < 1 << 32 }) {
            var packed = [UInt64](unsafeUninitializedCapacity: keys.count) { buffer, initialized in
                for index in keys.indices { buffer[index] = keys[index] << 32 | UInt64(index) }
                initialized = keys.count
            }
            packed.sort()
            var sorted = packed.map { Int($0 & 0xFFFF_FFFF) }
            // Each actor's rows in the total order, (time, id), as the evaluator walks them.
            var start = 0
            while start < sorted.count {
                let key = keys[sorted[start]]
                var end = start + 1
                while end < sorted.count && keys[sorted[end]] == key { end += 1 }
                if end - start > 1 {
                    sorted[start..<end].sort { a, b in times[a] != times[b] ? times[a] < times[b] : ids[a] < ids[b] }
                }
                let actor = evaluator.newActorNumber("k\(key)")
                for index in sorted[start..<end] { actorOf[index] = actor }
                start = end
            }
            order = sorted
        } else {
            order = Array(keys.indices)
            var numbers: [UInt64: Int32] = [:]
            for index in order {
                if let known = numbers[keys[index]] { actorOf[index] = known; continue }
                let actor = evaluator.actorNumber("k\(keys[index])")
                numbers[keys[index]] = actor
                actorOf[index] = actor
            }
        }
        evaluator.reserveCapacity(order.count)
        for index in order {
            let place = places[index]
            let values = chunkValues[Int(place.chunk)]
            evaluator.add(actorNumber: actorOf[index], timeMs: times[index], eventID: ids[index], steps: steps[index],
                          breakdown: chunkLabels[Int(place.chunk)]?[Int(place.row)],
                          values: values.map { $0[Int(place.row)] == 0 ? nil : "k\($0[Int(place.row)])" })
        }
    }
}

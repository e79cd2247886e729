import HandzAnalyticsCore
import HandzQuery

/// A funnel run on the column store: the funnel's chunks (its events' names, the days of
/// [from, to + window)) read column by column, each row's steps matched on dictionary codes, and
/// the rows handed to `FunnelEvaluator` (HandzQuery) — the walk the SQLite path uses, so the numbers are the
/// same by construction where the rows are; the tests hold the two together.
///
/// Answers single-actor funnels per install (F0, F1, F3, ad-hoc funnels, breakdowns), a success
/// on any event included (F1's: read, after the steps, only in each install's success window,
/// the way the SQLite walk reads it); ``supports(_:)`` says so, and the caller runs the others
/// (across people, keyed by an id, per user, `first_by`) on the SQL path.
public struct ColumnFunnel {
    public let store: ColumnStore
    public let catalog: Catalog

    public init(store: ColumnStore, catalog: Catalog) {
        self.store = store
        self.catalog = catalog
    }

    public static func supports(_ query: FunnelQuery) -> Bool {
        guard query.actor == .install, query.source == .table, query.funnel.handoffIndex == nil, query.funnel.chainKey == nil else { return false }
        guard let success = query.funnel.successCondition else { return true }
        return success.firstBy == nil && success.differs == nil
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

        var evaluator = FunnelEvaluator(query: query)
        var actors = ActorNumbers()
        for entry in store.chunks(events: names, fromMs: query.fromMs, toMs: horizon) {
            let chunk = try store.chunk(entry)
            let read = ChunkColumns(chunk: chunk, file: entry.file)
            let installs = try read.keys(ColumnName.installID, store.textKeys)
            let times = try read.times(ColumnName.eventTime)
            let ids = try read.ids()
            let (always, filtered) = try matchers.plan(read, strings: store.strings)
            let labels = try breakdownColumn.map { try read.labels($0, dictionaries: store.strings) }
            for row in 0..<chunk.rows {
                let time = times[row]
                guard time >= query.fromMs, time < horizon else { continue }
                var mask = always
                for (bit, checks) in filtered where checks.allSatisfy({ check in
                    let code = Int(check.codes[row])
                    return code < check.allowed.count && check.allowed[code]
                }) { mask |= bit }
                let actor = actors.number(installs[row], &evaluator)
                evaluator.add(actorNumber: actor, timeMs: time, eventID: ids[row], steps: mask, breakdown: labels?[row])
            }
        }
        if let success = query.funnel.successCondition, success.events.isEmpty {
            try addSuccessOnAnyEvent(success, stepEvents: names, into: &evaluator)
        }
        return evaluator.report()
    }

    /// F1's success, "an event after signup_success that says user_state = free", on events that
    /// are no step's: only in each install's window where it can change the report
    /// (`FunnelEvaluator.successSearchWindows()`), added with the success bit alone — what the
    /// SQLite walk reads by index, here by the chunks' install order.
    func addSuccessOnAnyEvent(_ success: FunnelSuccess, stepEvents: Set<String>, into evaluator: inout FunnelEvaluator) throws {
        let windows = evaluator.successSearchWindows()
        guard !windows.isEmpty else { return }
        // Each window by its install's text key (the actor names ActorNumbers gave: "k" + key).
        var byKey: [UInt64: (fromMs: Int64, throughMs: Int64, actor: Int32)] = [:]
        for window in windows {
            guard let key = UInt64(window.actor.dropFirst()) else { continue }
            byKey[key] = (window.fromMs, window.throughMs, window.actorNumber)
        }
        let earliest = windows.map(\.fromMs).min()!, latest = windows.map(\.throughMs).max()!
        let successBit = UInt32(1) << UInt32(evaluator.query.funnel.steps.count)
        var matchers = RowMatchers()
        matchers.add(bit: successBit, events: [], filters: success.filters, catalog: catalog, strings: store.strings)
        for entry in store.manifest.chunks where !stepEvents.contains(entry.event) && entry.maxTimeMs >= earliest && entry.minTimeMs <= latest {
            let chunk = try store.chunk(entry)
            let read = ChunkColumns(chunk: chunk, file: entry.file)
            let (always, filtered) = try matchers.plan(read, strings: store.strings)
            guard always != 0 || !filtered.isEmpty else { continue }
            let installs = try read.keys(ColumnName.installID, store.textKeys)
            let times = try read.times(ColumnName.eventTime)
            var ids: [UUIDWords]?
            for row in 0..<chunk.rows {
                guard let window = byKey[installs[row]], times[row] >= window.fromMs, times[row] <= window.throughMs,
                      always != 0 || filtered[0].checks.allSatisfy({ Int($0.codes[row]) < $0.allowed.count && $0.allowed[Int($0.codes[row])] }) else { continue }
                if ids == nil { ids = try read.ids() }
                evaluator.add(actorNumber: window.actor, timeMs: times[row], eventID: ids![row], steps: successBit, breakdown: nil)
            }
        }
    }
}

/// Each install's actor number in the evaluator, given on first sight (by ``DenseNumbers``, not a
/// hash of its text per row); the evaluator knows it as "k" + its text key.
struct ActorNumbers {
    var numbers = DenseNumbers()
    var actors: [Int32] = []

    mutating func number(_ key: UInt64, _ evaluator: inout FunnelEvaluator) -> Int32 {
        let dense = Int(numbers.number(key))
        if dense == actors.count { actors.append(evaluator.actorNumber("k\(key)")) }
        return actors[dense]
    }
}

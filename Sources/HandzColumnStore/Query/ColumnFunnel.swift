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
        var matchers: [(bit: UInt32, events: Set<String>, filters: [CodeFilter])] = []
        for (index, step) in query.funnel.steps.enumerated() {
            matchers.append((UInt32(1) << UInt32(index), Set(step.events), try step.filters.map(codeFilter)))
        }
        if let success = query.funnel.successCondition {
            matchers.append((UInt32(1) << UInt32(query.funnel.steps.count), Set(success.events), try success.filters.map(codeFilter)))
        }
        let names = Set(matchers.flatMap(\.events))
        let breakdownColumn = query.breakdown.map(Self.columnName)

        var evaluator = FunnelEvaluator(query: query)
        var actors = ActorNumbers()
        for entry in store.chunks(events: names, fromMs: query.fromMs, toMs: horizon) {
            let chunk = try store.chunk(entry)
            let read = ChunkColumns(chunk: chunk, file: entry.file)
            let installs = try read.codes(ColumnName.installID)
            let installType = chunk.entry(ColumnName.installID)?.type ?? .string
            let times = try read.times(ColumnName.eventTime)
            let ids = try read.ids()
            // The step bits every row of this event has before filters, and the filters to check.
            var always: UInt32 = 0
            var filtered: [(bit: UInt32, checks: [(codes: [UInt32], allowed: [Bool])])] = []
            // A success with no events (F1's) is a filter on every event, step events included.
            for matcher in matchers where matcher.events.isEmpty || matcher.events.contains(chunk.eventName) {
                if matcher.filters.isEmpty { always |= matcher.bit; continue }
                var checks: [(codes: [UInt32], allowed: [Bool])] = []
                var impossible = false
                for filter in matcher.filters {
                    guard let codes = try read.codesIfPresent(filter.column, type: filter.type, strings: store.strings) else { impossible = true; break }
                    checks.append((codes, filter.allowed))
                }
                if !impossible { filtered.append((matcher.bit, checks)) }
            }
            let labels = try breakdownColumn.map { try read.labels($0, dictionaries: store.strings) }
            for row in 0..<chunk.rows {
                let time = times[row]
                guard time >= query.fromMs, time < horizon else { continue }
                var mask = always
                for (bit, checks) in filtered where checks.allSatisfy({ check in
                    let code = Int(check.codes[row])
                    return code < check.allowed.count && check.allowed[code]
                }) { mask |= bit }
                let actor = actors.number(type: installType, code: installs[row], &evaluator)
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
        // Each window by its install's code (the actor names ActorNumbers gave: u… or s… + code).
        var byCode: [ColumnType: [UInt32: (fromMs: Int64, throughMs: Int64, actor: Int32)]] = [:]
        for window in windows {
            guard let code = UInt32(window.actor.dropFirst()) else { continue }
            byCode[window.actor.hasPrefix("u") ? .uuid : .string, default: [:]][code] = (window.fromMs, window.throughMs, window.actorNumber)
        }
        let earliest = windows.map(\.fromMs).min()!, latest = windows.map(\.throughMs).max()!
        let successBit = UInt32(1) << UInt32(evaluator.query.funnel.steps.count)
        let filters = try success.filters.map(codeFilter)
        for entry in store.manifest.chunks where !stepEvents.contains(entry.event) && entry.maxTimeMs >= earliest && entry.minTimeMs <= latest {
            let chunk = try store.chunk(entry)
            let read = ChunkColumns(chunk: chunk, file: entry.file)
            guard let windowsOfType = byCode[chunk.entry(ColumnName.installID)?.type ?? .string] else { continue }
            var checks: [(codes: [UInt32], allowed: [Bool])] = []
            for filter in filters {
                guard let codes = try read.codesIfPresent(filter.column, type: filter.type, strings: store.strings) else { checks = []; break }
                checks.append((codes, filter.allowed))
            }
            guard checks.count == filters.count else { continue }
            let installs = try read.codes(ColumnName.installID)
            let times = try read.times(ColumnName.eventTime)
            var ids: [UUIDWords]?
            for row in 0..<chunk.rows {
                guard let window = windowsOfType[installs[row]], times[row] >= window.fromMs, times[row] <= window.throughMs,
                      checks.allSatisfy({ Int($0.codes[row]) < $0.allowed.count && $0.allowed[Int($0.codes[row])] }) else { continue }
                if ids == nil { ids = try read.ids() }
                evaluator.add(actorNumber: window.actor, timeMs: times[row], eventID: ids![row], steps: successBit, breakdown: nil)
            }
        }
    }

    /// A filter as codes: the column it reads and, per code, whether it is one of the values.
    struct CodeFilter {
        var column: String
        var type: ColumnType
        var allowed: [Bool]
    }

    /// Filters are on closed sets (catalog lint: enums and booleans), so their columns are string
    /// or boolean columns: a value is allowed by its code.
    func codeFilter(_ filter: PropertyFilter) throws -> CodeFilter {
        let column = Self.columnName(filter.property)
        if catalog.properties[filter.property]?.type == .boolean {
            var allowed = [false, false, false]
            for value in filter.values { if value == "true" { allowed[2] = true } else if value == "false" { allowed[1] = true } }
            return CodeFilter(column: column, type: .boolean, allowed: allowed)
        }
        var allowed = [Bool](repeating: false, count: store.strings.strings.count + 1)
        for value in filter.values { if let code = store.strings.existingCode(string: value) { allowed[Int(code)] = true } }
        return CodeFilter(column: column, type: .string, allowed: allowed)
    }

    /// The chunk column of a catalog property: an envelope field's own column, or the property's.
    static func columnName(_ property: String) -> String {
        EventsTable.envelopeColumns.contains(property) ? property : ColumnName.property(property)
    }
}

/// Each install code's actor number in the evaluator, given on first sight (by an array, not a
/// hash per row).
struct ActorNumbers {
    var uuidActors: [Int32] = []
    var stringActors: [Int32] = []

    mutating func number(type: ColumnType, code: UInt32, _ evaluator: inout FunnelEvaluator) -> Int32 {
        let index = Int(code)
        if type == .uuid {
            if index < uuidActors.count, uuidActors[index] >= 0 { return uuidActors[index] }
            if index >= uuidActors.count { uuidActors += repeatElement(-1, count: max(index + 1 - uuidActors.count, uuidActors.count)) }
            uuidActors[index] = evaluator.actorNumber("u\(code)")
            return uuidActors[index]
        }
        if index < stringActors.count, stringActors[index] >= 0 { return stringActors[index] }
        if index >= stringActors.count { stringActors += repeatElement(-1, count: max(index + 1 - stringActors.count, stringActors.count)) }
        stringActors[index] = evaluator.actorNumber("s\(code)")
        return stringActors[index]
    }
}

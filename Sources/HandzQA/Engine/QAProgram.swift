import HandzAnalyticsCore

/// A rule set compiled against a catalog: event names and filter values interned, every property
/// a rule reads given a slot. Build it once, read events into ``makeLog()``, then `run(_:)`.
public struct QAProgram: Sendable {
    public let ruleSet: QARuleSet
    let catalog: Catalog
    var slots = PropertySlots()
    var names = ByteInterner(capacity: 256)
    var values = ByteInterner(capacity: 1024)
    /// Catalogued, enabled event names (by interned id), for `catalogued`.
    var enabledNames: Set<Int32> = []

    /// Compiles `ruleSet`. The rule files were linted when loaded; anything that still does not
    /// resolve (a property the catalog lacks) is a `CompileError` naming the rule.
    public init(ruleSet: QARuleSet, catalog: Catalog) throws(CompileError) {
        self.ruleSet = ruleSet
        self.catalog = catalog
        for event in catalog.events {
            let id = names.intern(event.name)
            if event.isEnabled { enabledNames.insert(id) }
        }
        // Every property any rule reads gets its slot up front, so the log is laid out once; filter
        // values are interned now, so evaluating a rule only looks them up.
        for rule in ruleSet.rules {
            for property in Self.properties(of: rule.kind, catalog: catalog) where slots.slot(property, catalog: catalog) == nil {
                throw CompileError(rule: rule.id, message: "\(property) is not a catalogued property")
            }
            for filter in Self.patterns(of: rule.kind, catalog: catalog).flatMap(\.filters) {
                for value in filter.values { _ = values.intern(value) }
            }
        }
    }

    /// Every event pattern a rule kind uses (funnel steps included).
    static func patterns(of kind: QARuleKind, catalog: Catalog) -> [EventPattern] {
        switch kind {
        case .exactlyOncePer(let event, _, let reset): [event] + reset
        case .followedBy(let event, let targets, _, _, _), .precededBy(let event, let targets, _, _, _), .emittedTogether(let event, let targets, _, _):
            [event] + targets
        case .chain(let event, _, _, _), .minInterval(let event, _, _): [event]
        case .decrement(let event, _, _, let reset, _, _): [event] + (reset.map { [$0] } ?? [])
        case .funnelCompleteness(let ids):
            catalog.funnels.filter { ids.contains($0.id) }.flatMap { $0.steps.map { EventPattern(events: $0.events, filters: $0.filters) } }
        case .silenceWhile, .catalogued: []
        }
    }

    public struct CompileError: Error, Sendable, CustomStringConvertible {
        public var rule: String
        public var message: String
        public var description: String { "rule \(rule): \(message)" }
    }

    /// An empty log laid out for this program.
    public func makeLog() -> QAEventLog { QAEventLog(program: self) }

    /// The properties a rule kind reads: its patterns' filters, and `same`, chain and counter properties.
    static func properties(of kind: QARuleKind, catalog: Catalog) -> [String] {
        let filtered = patterns(of: kind, catalog: catalog).flatMap { $0.filters.map(\.property) }
        switch kind {
        case .followedBy(_, _, _, _, let same), .precededBy(_, _, _, _, let same), .emittedTogether(_, _, _, let same): return filtered + same
        case .chain(_, let property, let previous, _): return filtered + [property, previous]
        case .silenceWhile(let property, _, _): return [property]
        case .decrement(_, let property, _, _, let resetProperty, _): return filtered + [property] + (resetProperty.map { [$0] } ?? [])
        default: return filtered
        }
    }
}

/// An ``EventPattern`` compiled for one log: names as a membership table, filters as slot and
/// allowed encoded values.
struct CompiledPattern {
    let description: String
    var names: [Bool]
    var filters: [(slot: Int, values: [Int64])]

    init(_ pattern: EventPattern, log: inout QAEventLog) {
        description = pattern.description
        let ids = pattern.events.map { log.names.intern($0) }
        names = Array(repeating: false, count: log.names.count)
        for id in ids { names[Int(id)] = true }
        filters = pattern.filters.compactMap { filter in
            guard let slot = log.slots.slot(named: filter.property) else { return nil }
            let values: [Int64] = filter.values.compactMap { text in
                switch log.slots.slots[slot].type {
                case .string: Int64(log.values.intern(text))
                case .integer: Int64(text)
                case .boolean: text == "true" ? 1 : text == "false" ? 0 : nil
                }
            }
            return (slot, values)
        }
    }

    @inline(__always) func matches(_ event: Int32, _ log: QAEventLog) -> Bool {
        let name = Int(log.name[Int(event)])
        guard name < names.count, names[name] else { return false }
        for filter in filters where !filter.values.contains(log.value(event, filter.slot)) { return false }
        return true
    }
}

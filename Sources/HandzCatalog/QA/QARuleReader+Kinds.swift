import HandzAnalyticsCore
import HandzQA
import Yams

/// One rule's fields, read and checked against the catalog.
struct RuleCheck {
    let id: String
    var reader: YAMLReader
    let catalog: Catalog
    let topLevel: Set<String>
    var failed = false

    mutating func problem(_ node: Node?, _ message: String) {
        reader.problem(node, "rule \(id): \(message)")
        failed = true
    }

    mutating func kind(_ kind: String, _ given: [String: Node]) -> QARuleKind? {
        let result: QARuleKind?
        switch kind {
        case "exactly_once_per":
            let event = pattern(given["event"])
            let reset = patterns(given["reset_after"])
            result = event.map { .exactlyOncePer(event: $0, scope: scope(given["scope"]), resetAfter: reset) }
        case "followed_by", "preceded_by":
            let forward = kind == "followed_by"
            let event = pattern(given["event"])
            let targetsNode = given[forward ? "then" : "after"]
            let targets = patterns(targetsNode)
            if targets.isEmpty { problem(targetsNode, "\(forward ? "then" : "after") needs at least one event") }
            let within = duration(given["within"])
            let same = sameProperties(given["same"], event: event, partners: targets)
            guard let event else { return nil }
            result = forward
                ? .followedBy(event: event, then: targets, withinMs: within, scope: scope(given["scope"]), same: same)
                : .precededBy(event: event, after: targets, withinMs: within, scope: scope(given["scope"]), same: same)
        case "emitted_together":
            let event = pattern(given["event"])
            let partners = patterns(given["with"])
            if partners.isEmpty { problem(given["with"], "with needs at least one event") }
            let within = given["within"] == nil ? 1000 : duration(given["within"])
            let same = sameProperties(given["same"], event: event, partners: partners)
            result = event.map { .emittedTogether(event: $0, with: partners, withinMs: within, same: same) }
        case "chain":
            let event = pattern(given["event"])
            let property = carried(given["property"], by: event)
            let previous = carried(given["equals_previous"], by: event)
            result = event.map { .chain(event: $0, property: property ?? "", equalsPrevious: previous ?? "", scope: scope(given["scope"])) }
        case "silence_while":
            let property = reader.string(given["property"], "\(id).property") ?? ""
            if !topLevel.contains(property) || catalog.properties[property]?.type != .boolean {
                problem(given["property"], "silence_while reads an envelope boolean (analytics_opt_in); \(property) is not one")
            }
            let value = reader.boolean(given["equals"], "\(id).equals") ?? false
            result = .silenceWhile(property: property, value: value, scope: scope(given["scope"]))
        case "decrement":
            let event = pattern(given["event"])
            let property = carried(given["property"], by: event, type: .integer)
            let by = given["by"].flatMap { reader.integer($0, "\(id).by") } ?? 1
            let reset = given["reset"].flatMap { pattern($0) }
            var resetProperty: String?
            if given["reset"] != nil || given["reset_property"] != nil {
                if given["reset"] == nil || given["reset_property"] == nil { problem(given["reset"] ?? given["reset_property"], "reset and reset_property go together") }
                resetProperty = carried(given["reset_property"], by: reset, type: .integer)
            }
            result = event.map { .decrement(event: $0, property: property ?? "", by: by, resetEvent: reset, resetProperty: resetProperty, scope: scope(given["scope"])) }
        case "min_interval":
            let event = pattern(given["event"])
            let interval = duration(given["interval"])
            result = event.map { .minInterval(event: $0, intervalMs: interval, scope: scope(given["scope"])) }
        case "funnel_completeness":
            let funnels = reader.strings(given["funnels"], "\(id).funnels")
            for funnel in funnels where !catalog.funnels.contains(where: { $0.id == funnel }) {
                problem(given["funnels"], "funnel \(funnel) is not defined in funnels.yaml")
            }
            if funnels.isEmpty { problem(given["funnels"], "funnels needs at least one funnel") }
            result = .funnelCompleteness(funnels: funnels)
        default:
            result = .catalogued
        }
        return failed ? nil : result
    }

    /// `app_open`, or `{events: [a, b], where: {property: [values]}}` (`event: a` for one).
    mutating func pattern(_ node: Node?) -> EventPattern? {
        guard let node else { return nil }
        var pattern = EventPattern(events: [])
        if node.scalar != nil {
            pattern.events = [reader.string(node, "\(id) event") ?? ""]
        } else if node.mapping != nil {
            for (field, _, value) in reader.pairs(node, context: "rule \(id) event", allowed: ["event", "events", "where"]) {
                switch field {
                case "event": pattern.events.append(reader.string(value, "\(id) event") ?? "")
                case "events": pattern.events += reader.strings(value, "\(id) events")
                default:
                    for (property, _, values) in reader.pairs(value, context: "rule \(id) where") {
                        let list = values.scalar != nil ? [reader.string(values, "\(id) where") ?? ""] : reader.strings(values, "\(id) where \(property)")
                        pattern.filters.append(PropertyFilter(property: property, values: list))
                    }
                }
            }
        } else {
            problem(node, "an event is a name or {events: [...], where: {...}}")
            return nil
        }
        if pattern.events.isEmpty { problem(node, "the event list is empty") }
        for name in pattern.events {
            guard let event = catalog.event(named: name) else {
                problem(node, "\(name) is not a catalogued event")
                continue
            }
            if !event.isEnabled { problem(node, "\(name) is a disabled placeholder; a rule on it never runs") }
            for filter in pattern.filters {
                var lint = Lint(catalog: catalog, sources: CatalogSourceMap())
                lint.checkFilter(filter, event: event, at: reader.location(node), step: "rule \(id)")
                for found in lint.problems { reader.problems.append(found); failed = true }
            }
        }
        return pattern
    }

    mutating func patterns(_ node: Node?) -> [EventPattern] {
        guard let node else { return [] }
        guard let items = node.sequence else { return pattern(node).map { [$0] } ?? [] }
        return items.compactMap { pattern($0) }
    }

    mutating func scope(_ node: Node?) -> QAScope {
        let text = reader.string(node, "\(id).scope") ?? ""
        guard let scope = QAScope(rawValue: text) else {
            problem(node, "scope must be session or install")
            return .session
        }
        return scope
    }

    /// A duration (`1s`, `10m`, `31d`) in milliseconds; at least one second.
    mutating func duration(_ node: Node?) -> Int64 {
        guard let seconds = reader.duration(node, "\(id) duration"), seconds > 0 else {
            problem(node, "a duration is a positive number with s, m, h, d or w (30s, 10m, 28d)")
            return 0
        }
        return seconds * 1000
    }

    /// Whether every event of `pattern` carries `property` (of `type`, when given).
    func carries(_ pattern: EventPattern, _ property: String, type: PropertyType? = nil) -> Bool {
        guard let definition = catalog.properties[property], type == nil || definition.type == type else { return false }
        return pattern.events.allSatisfy { name in
            guard let event = catalog.event(named: name) else { return true }
            return topLevel.contains(property) || catalog.allowedProperties(of: event).contains { $0.name == property }
        }
    }

    mutating func carried(_ node: Node?, by pattern: EventPattern?, type: PropertyType? = nil) -> String? {
        guard let property = reader.string(node, "\(id) property") else { return nil }
        if let pattern, !carries(pattern, property, type: type) {
            problem(node, "\(pattern) does not carry \(property)\(type.map { " as an \($0.rawValue)" } ?? "")")
        }
        return property
    }

    /// `same: [gate_name]`: carried by the event and by at least one partner.
    mutating func sameProperties(_ node: Node?, event: EventPattern?, partners: [EventPattern]) -> [String] {
        let names = reader.strings(node, "\(id).same")
        for name in names {
            if let event, !carries(event, name) { problem(node, "\(event) does not carry \(name)") }
            if !partners.contains(where: { carries($0, name) }) { problem(node, "no partner event carries \(name)") }
        }
        return names
    }
}

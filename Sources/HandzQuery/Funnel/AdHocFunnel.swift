import HandzAnalyticsCore

/// A funnel an analyst puts together instead of picking one of the catalog's (issue 16 §3: the
/// dashboards' funnel explorer and `handz-analytics funnel --steps`): 2 to
/// `FunnelDefinition/maxSteps` steps, each one or more of the catalog's **enabled** events,
/// optionally filtered on **closed-set** properties (enum or boolean) that every event of the step
/// carries, or on a closed-set envelope field such as `user_state`. It is walked and printed as SQL
/// like the catalog's funnels, by the same rules (HandzQuery docs, "Funnel semantics"); it has no success row.
///
/// The text form, one argument: steps separated by `,`; a step's events by `|`; filters in
/// brackets after the events, separated by `;`, each `property=value|value`:
///
///     app_open[launch_source=push|deep_link],onboarding_viewed,flow_builder_opened|library_viewed
///
/// What is refused says which step and why, and never repeats the text it was given: the explorer
/// shows these messages in a page (CH33 §1: nothing a client sent is echoed).
public enum AdHocFunnel {
    /// The id reports give an ad-hoc funnel.
    public static let id = "adhoc"
    /// The window when none is given: 7 days (`funnel --steps`, the explorer).
    public static let defaultWindowSeconds: Int64 = 7 * 86_400

    /// The definition of `text` (the text form above), with a window of `windowSeconds`.
    public static func definition(_ text: String, windowSeconds: Int64, catalog: Catalog) throws(QueryError) -> FunnelDefinition {
        let parts = try split(text)
        guard (2...FunnelDefinition.maxSteps).contains(parts.count) else {
            throw .invalidFunnel("an ad-hoc funnel has 2 to \(FunnelDefinition.maxSteps) steps")
        }
        var steps: [FunnelStep] = []
        for (index, part) in parts.enumerated() {
            steps.append(try step(part, number: index + 1, catalog: catalog))
        }
        guard windowSeconds > 0 else { throw .invalidWindow }
        return FunnelDefinition(id: id, title: "Ad-hoc funnel", spec: "issue 16 §3 (funnel explorer)", windowSeconds: windowSeconds,
                                success: "none (an ad-hoc funnel has no success row)", steps: steps)
    }

    /// The text form of `steps` (what ``definition(_:windowSeconds:catalog:)`` reads back): for
    /// the explorer's URLs.
    public static func text(_ steps: [FunnelStep]) -> String {
        steps.map { step in
            let filters = step.filters.map { "\($0.property)=\($0.values.joined(separator: "|"))" }
            return step.events.joined(separator: "|") + (filters.isEmpty ? "" : "[" + filters.joined(separator: ";") + "]")
        }.joined(separator: ",")
    }

    /// An exclusion step (issue 35 §3) in the text form: a step's events and filters, then
    /// optionally `@A-B`, the steps between which it is watched (default: 1 to `steps`):
    /// `library_viewed@2-4`. Refusals name no value, as for steps.
    public static func exclusion(_ text: String, steps: Int, catalog: Catalog) throws(QueryError) -> FunnelExclusion {
        guard text.utf8.count <= 1_024 else { throw .invalidFunnel("an exclusion is longer than 1024 bytes") }
        var body = Substring(text)
        var (from, to) = (1, steps)
        if let at = text.lastIndex(of: "@"), !text[at...].contains("]") {
            body = text[..<at]
            let bounds = text[text.index(after: at)...].split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let a = Int(bounds[0]), let b = Int(bounds[1]) else {
                throw .invalidFunnel("an exclusion's steps are @A-B, two step numbers")
            }
            (from, to) = (a, b)
        }
        guard 1 <= from, from < to, to <= steps else { throw .invalidFunnel("an exclusion is watched between steps A < B within 1…\(steps)") }
        let parsed = try step(body, number: 0, catalog: catalog)
        return FunnelExclusion(events: parsed.events, filters: parsed.filters, fromStep: from, toStep: to)
    }

    /// The text form of `exclusion` (what ``exclusion(_:steps:catalog:)`` reads back), the steps
    /// left out when they are the default 1…`steps`.
    public static func text(_ exclusion: FunnelExclusion, steps: Int) -> String {
        let body = text([FunnelStep(events: exclusion.events, filters: exclusion.filters)])
        return exclusion.fromStep == 1 && exclusion.toStep == steps ? body : body + "@\(exclusion.fromStep)-\(exclusion.toStep)"
    }

    /// The steps' texts: split on commas outside brackets.
    static func split(_ text: String) throws(QueryError) -> [Substring] {
        guard text.utf8.count <= 4_096 else { throw .invalidFunnel("the steps are longer than 4096 bytes") }
        var parts: [Substring] = []
        var start = text.startIndex
        var depth = 0
        for index in text.indices {
            switch text[index] {
            case "[": depth += 1
            case "]": depth -= 1
            case "," where depth == 0:
                parts.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
            guard (0...1).contains(depth) else { throw .invalidFunnel("step \(parts.count + 1): brackets do not match") }
        }
        guard depth == 0 else { throw .invalidFunnel("step \(parts.count + 1): brackets do not match") }
        parts.append(text[start...])
        return parts
    }

    static func step(_ text: Substring, number: Int, catalog: Catalog) throws(QueryError) -> FunnelStep {
        var eventsText = text
        var filtersText: Substring = ""
        if let open = text.firstIndex(of: "[") {
            guard text.last == "]" else { throw .invalidFunnel("step \(number): filters go in brackets at the end of the step") }
            eventsText = text[..<open]
            filtersText = text[text.index(after: open)..<text.index(before: text.endIndex)]
        }
        var events: [EventDefinition] = []
        for name in eventsText.split(separator: "|", omittingEmptySubsequences: false) {
            guard let event = catalog.event(named: String(name)), event.isEnabled else {
                throw .invalidFunnel("step \(number): every event must be an enabled event of the catalog")
            }
            if !events.contains(where: { $0.name == event.name }) { events.append(event) }
        }
        var filters: [PropertyFilter] = []
        if text.contains("[") {
            for filter in filtersText.split(separator: ";", omittingEmptySubsequences: false) {
                let parsed = try self.filter(filter, step: number, events: events, catalog: catalog)
                // Two filters on one property would both have to hold: list the values once instead.
                guard !filters.contains(where: { $0.property == parsed.property }) else {
                    throw .invalidFunnel("step \(number): a property is filtered twice; list its values in one filter")
                }
                filters.append(parsed)
            }
        }
        return FunnelStep(events: events.map(\.name), filters: filters)
    }

    /// `property=value|value`: a closed-set property every event of the step carries (or a
    /// closed-set envelope field), and values from its set.
    static func filter(_ text: Substring, step: Int, events: [EventDefinition], catalog: Catalog) throws(QueryError) -> PropertyFilter {
        let pieces = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard pieces.count == 2, !pieces[1].isEmpty else { throw .invalidFunnel("step \(step): a filter is property=value|value") }
        let name = String(pieces[0])
        guard let definition = catalog.properties[name], let closed = definition.closedValues else {
            throw .invalidFunnel("step \(step): filters are on closed-set properties (enum or boolean) of the catalog")
        }
        // The values every event of the step may give it (an event may narrow the catalog's set).
        var allowed: Set<String>?
        if EventsTable.envelopeColumns.contains(name) {
            allowed = Set(closed)
        } else {
            for event in events {
                guard let rule = catalog.allowedProperties(of: event).first(where: { $0.name == name }) else {
                    throw .invalidFunnel("step \(step): every event of the step must carry the filtered property")
                }
                let values = Set((catalog.effectiveDefinition(of: rule) ?? definition).closedValues ?? [])
                allowed = allowed.map { $0.intersection(values) } ?? values
            }
        }
        let values = pieces[1].split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard let allowed, values.allSatisfy(allowed.contains) else {
            throw .invalidFunnel("step \(step): a filter value is not in the property's closed set")
        }
        return PropertyFilter(property: name, values: uniqued(values))
    }

    /// `values` without repeats, in order.
    static func uniqued(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}

import HandzAnalyticsCore

/// What one change between two catalogs means for the apps already sending events
/// (docs/catalog-releases.md):
/// - `addition`: every event valid before is still valid, and more are (a new event, optional
///   property, enum value, wider range, new funnel or KPI) — a minor release;
/// - `revision`: no event's validity and no reported number changes (descriptions, spec
///   references, notes, lint-only rules) — a patch release;
/// - `breaking`: some event valid before is now refused, or a past number changes (removed or
///   disabled event or property, type change, optional → required, enum value removed, narrower
///   range or format, changed funnel or KPI definition) — a major release.
public enum CatalogChangeClass: String, Sendable, Comparable, CaseIterable, Codable {
    case revision
    case addition
    case breaking

    /// The version part a release with a change of this class must raise at least.
    public var requiredBump: CatalogVersionBump {
        switch self {
        case .revision: .patch
        case .addition: .minor
        case .breaking: .major
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One classified difference: what changed (`subject`, e.g. `event flow_saved`), how (`change`,
/// in words, naming catalog identifiers and catalogued values only).
public struct CatalogChange: Sendable, Equatable, Codable {
    public var changeClass: CatalogChangeClass
    public var subject: String
    public var change: String

    public init(_ changeClass: CatalogChangeClass, _ subject: String, _ change: String) {
        self.changeClass = changeClass
        self.subject = subject
        self.change = change
    }

    enum CodingKeys: String, CodingKey {
        case changeClass = "class"
        case subject
        case change
    }
}

/// Every change between two catalogs, classified. Pure: two `Catalog` values in, a list out, in
/// a stable order (envelope and limits, properties, events, time zones, funnels, KPIs).
public enum CatalogDiff {
    public static func changes(from old: Catalog, to new: Catalog) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        changes += limits(old.limits, new.limits)
        changes += envelope(old.envelope, new.envelope)
        changes += properties(old, new)
        changes += events(old, new)
        changes += timeZones(old.timeZones, new.timeZones)
        changes += funnels(old.funnels, new.funnels)
        changes += kpis(old.kpis, new.kpis)
        if old.naming != new.naming { changes.append(CatalogChange(.revision, "naming", "naming standard changed (checked by catalog lint, not by the validator)")) }
        if old.privacy != new.privacy {
            // The key denylist only names the rule an uncatalogued key breaks; such a key is
            // refused as unknown_property either way.
            changes.append(CatalogChange(.revision, "privacy", "PII key policy changed (only uncatalogued keys, refused anyway, are affected)"))
        }
        if old.retiredVersions != new.retiredVersions {
            // Retiring a version changes which older apps are heard, not what this version's
            // apps may send: it is an operational decision, not a contract change.
            changes.append(CatalogChange(.revision, "retired_versions", "retired versions: \(new.retiredVersions.sorted().joined(separator: ", "))"))
        }
        return changes
    }

    /// The heaviest class among `changes`; nil when there are none.
    public static func required(_ changes: [CatalogChange]) -> CatalogChangeClass? {
        changes.map(\.changeClass).max()
    }

    // MARK: Parts

    static func limits(_ old: CatalogLimits, _ new: CatalogLimits) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        func bound(_ name: String, _ before: Int, _ after: Int) {
            guard before != after else { return }
            changes.append(CatalogChange(after < before ? .breaking : .addition, "limits", "\(name) \(before) → \(after)"))
        }
        bound("max_event_bytes", old.maxEventBytes, new.maxEventBytes)
        bound("max_nesting_depth", old.maxNestingDepth, new.maxNestingDepth)
        bound("max_scan_depth", old.maxScanDepth, new.maxScanDepth)
        if old.maxIssuesPerEvent != new.maxIssuesPerEvent {
            changes.append(CatalogChange(.revision, "limits", "max_issues_per_event \(old.maxIssuesPerEvent) → \(new.maxIssuesPerEvent) (how many issues a verdict lists)"))
        }
        return changes
    }

    static func envelope(_ old: EnvelopeDefinition, _ new: EnvelopeDefinition) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        let oldAllowed = Set(old.required + old.optional)
        let newAllowed = Set(new.required + new.optional)
        for name in new.required where !old.required.contains(name) {
            changes.append(CatalogChange(.breaking, "envelope", "\(name) is now required at the top level"))
        }
        for name in old.required where !new.required.contains(name) {
            changes.append(newAllowed.contains(name)
                ? CatalogChange(.addition, "envelope", "\(name) is now optional at the top level")
                : CatalogChange(.breaking, "envelope", "\(name) removed from the top level"))
        }
        for name in new.optional where !oldAllowed.contains(name) {
            changes.append(CatalogChange(.addition, "envelope", "\(name) may now be sent at the top level"))
        }
        for name in old.optional where !newAllowed.contains(name) {
            changes.append(CatalogChange(.breaking, "envelope", "\(name) removed from the top level"))
        }
        for name in new.commonOptional where !old.commonOptional.contains(name) {
            changes.append(CatalogChange(.addition, "envelope", "\(name) may now be sent inside properties on every event"))
        }
        for name in old.commonOptional where !new.commonOptional.contains(name) {
            changes.append(CatalogChange(.breaking, "envelope", "\(name) removed from the properties every event may carry"))
        }
        return changes
    }

    static func properties(_ old: Catalog, _ new: Catalog) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        for name in Set(old.properties.keys).union(new.properties.keys).sorted() {
            let subject = "property \(name)"
            switch (old.properties[name], new.properties[name]) {
            case (nil, .some):
                changes.append(CatalogChange(.addition, subject, "added"))
            case (.some(let before), nil):
                changes.append(CatalogChange(before.isEnabled ? .breaking : .revision, subject, "removed"))
            case (.some(let before), .some(let after)):
                changes += definition(subject, before, after)
                if before.isEnabled != after.isEnabled {
                    changes.append(CatalogChange(after.isEnabled ? .addition : .breaking, subject, after.isEnabled ? "enabled" : "disabled"))
                }
                if before.description != after.description || before.spec != after.spec {
                    changes.append(CatalogChange(.revision, subject, "description or spec reference changed"))
                }
            case (nil, nil):
                break
            }
        }
        return changes
    }

    /// The rule changes between two definitions of one property: type, closed set, format, range.
    static func definition(_ subject: String, _ old: PropertyDefinition, _ new: PropertyDefinition) -> [CatalogChange] {
        guard old.type == new.type else {
            return [CatalogChange(.breaking, subject, "type \(old.type.rawValue) → \(new.type.rawValue)")]
        }
        var changes: [CatalogChange] = []
        switch (old.allowedValues, new.allowedValues) {
        case (let before?, let after?):
            let removed = before.filter { !after.contains($0) }
            let added = after.filter { !before.contains($0) }
            if !removed.isEmpty { changes.append(CatalogChange(.breaking, subject, "values removed: \(removed.joined(separator: ", "))")) }
            if !added.isEmpty { changes.append(CatalogChange(.addition, subject, "values added: \(added.joined(separator: ", "))")) }
        case (nil, let after?):
            changes.append(CatalogChange(.breaking, subject, "now limited to the values \(after.joined(separator: ", "))"))
        case (.some, nil):
            changes.append(CatalogChange(.breaking, subject, "closed set of values replaced"))
        case (nil, nil):
            break
        }
        if old.format != new.format {
            // Formats are not ordered by what they accept: any change may refuse a value that
            // passed before (the one widening, dropping a format for nothing, is not allowed for
            // strings, which always keep a closed set or a format).
            let before = old.format.map { "\($0)" } ?? "none"
            let after = new.format.map { "\($0)" } ?? "none"
            changes.append(CatalogChange(.breaking, subject, "format \(before) → \(after)"))
        }
        changes += range(subject, "minimum", old.minimum, new.minimum, widerWhenLower: true)
        changes += range(subject, "maximum", old.maximum, new.maximum, widerWhenLower: false)
        return changes
    }

    static func range(_ subject: String, _ name: String, _ old: Int64?, _ new: Int64?, widerWhenLower: Bool) -> [CatalogChange] {
        guard old != new else { return [] }
        let text = "\(name) \(old.map(String.init) ?? "none") → \(new.map(String.init) ?? "none")"
        switch (old, new) {
        case (nil, .some): return [CatalogChange(.breaking, subject, text)]
        case (.some, nil): return [CatalogChange(.addition, subject, text)]
        case (let before?, let after?):
            let wider = widerWhenLower ? after < before : after > before
            return [CatalogChange(wider ? .addition : .breaking, subject, text)]
        case (nil, nil): return []
        }
    }

    static func events(_ old: Catalog, _ new: Catalog) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        let oldByName = Dictionary(old.events.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newByName = Dictionary(new.events.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in (old.events.map(\.name) + new.events.map(\.name).filter { oldByName[$0] == nil }) {
            let subject = "event \(name)"
            switch (oldByName[name], newByName[name]) {
            case (nil, let after?):
                // A placeholder added is reviewed but still refused: nothing an app sends changes.
                changes.append(CatalogChange(after.isEnabled ? .addition : .revision, subject, after.isEnabled ? "added" : "added as a placeholder (disabled)"))
            case (let before?, nil):
                changes.append(CatalogChange(before.isEnabled ? .breaking : .revision, subject, before.isEnabled ? "removed" : "placeholder removed"))
            case (let before?, let after?):
                if before.isEnabled != after.isEnabled {
                    changes.append(CatalogChange(after.isEnabled ? .addition : .breaking, subject, after.isEnabled ? "enabled" : "disabled (now a placeholder)"))
                }
                changes += eventRules(subject, before, after, old, new)
                if before.description != after.description || before.spec != after.spec || before.note != after.note
                    || before.domain != after.domain || before.globalProperties != after.globalProperties {
                    changes.append(CatalogChange(.revision, subject, "description, spec reference, domain or notes changed"))
                }
            case (nil, nil):
                break
            }
        }
        return changes
    }

    /// The property rules of one event in both catalogs: what it may carry inside `properties`
    /// (its own rules and the common optional ones), required or not, and its own narrowing of a
    /// property's values or range. A property definition's own changes are reported once, under
    /// the property, not again under every event.
    static func eventRules(_ subject: String, _ oldEvent: EventDefinition, _ newEvent: EventDefinition, _ old: Catalog, _ new: Catalog) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        let before = Dictionary(old.allowedProperties(of: oldEvent).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.allowedProperties(of: newEvent).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in Set(before.keys).union(after.keys).sorted() {
            switch (before[name], after[name]) {
            case (nil, let rule?):
                changes.append(CatalogChange(rule.isRequired ? .breaking : .addition, subject, rule.isRequired ? "new required property \(name)" : "new optional property \(name)"))
            case (.some, nil):
                changes.append(CatalogChange(.breaking, subject, "property \(name) removed"))
            case (let was?, let now?):
                if was.isRequired != now.isRequired {
                    changes.append(CatalogChange(now.isRequired ? .breaking : .addition, subject, "property \(name) is now \(now.isRequired ? "required" : "optional")"))
                }
                if was.allowedValues != now.allowedValues || was.minimum != now.minimum || was.maximum != now.maximum,
                   var oldDefinition = old.effectiveDefinition(of: was), let newDefinition = new.effectiveDefinition(of: now) {
                    // Only the event's own narrowing: the definition's type and format are
                    // compared under the property.
                    oldDefinition.type = newDefinition.type
                    oldDefinition.format = newDefinition.format
                    changes += definition("\(subject) property \(name)", oldDefinition, newDefinition)
                }
            case (nil, nil):
                break
            }
        }
        return changes
    }

    static func timeZones(_ old: [String], _ new: [String]) -> [CatalogChange] {
        let before = Set(old)
        let after = Set(new)
        var changes: [CatalogChange] = []
        let removed = before.subtracting(after).sorted()
        let added = after.subtracting(before).sorted()
        if !removed.isEmpty { changes.append(CatalogChange(.breaking, "time_zones", "removed: \(removed.joined(separator: ", "))")) }
        if !added.isEmpty { changes.append(CatalogChange(.addition, "time_zones", "added: \(added.joined(separator: ", "))")) }
        return changes
    }

    static func funnels(_ old: [FunnelDefinition], _ new: [FunnelDefinition]) -> [CatalogChange] {
        definitions(old, new, kind: "funnel", id: \.id) { funnel in
            // What the numbers depend on; titles, spec references and the success in words do not.
            var rule = funnel
            rule.title = ""
            rule.spec = ""
            rule.success = ""
            rule.steps = rule.steps.map { step in
                var step = step
                step.specName = nil
                step.resolution = nil
                return step
            }
            return rule
        }
    }

    static func kpis(_ old: [KPIDefinition], _ new: [KPIDefinition]) -> [CatalogChange] {
        definitions(old, new, kind: "kpi", id: \.id) { kpi in
            var rule = kpi
            rule.title = ""
            rule.spec = ""
            rule.definition = KPIText()
            rule.note = nil
            rule.unit = nil
            return rule
        }
    }

    /// Funnels and KPIs: added (addition), removed (breaking: a report that read it stops), the
    /// rule changed (breaking: past numbers change), or only the words (revision).
    static func definitions<Definition: Equatable>(_ old: [Definition], _ new: [Definition], kind: String, id: KeyPath<Definition, String>,
                                                   rule: (Definition) -> Definition) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        let newByID = Dictionary(new.map { ($0[keyPath: id], $0) }, uniquingKeysWith: { first, _ in first })
        let oldIDs = Set(old.map { $0[keyPath: id] })
        for before in old {
            let subject = "\(kind) \(before[keyPath: id])"
            guard let after = newByID[before[keyPath: id]] else {
                changes.append(CatalogChange(.breaking, subject, "removed"))
                continue
            }
            if rule(before) != rule(after) {
                changes.append(CatalogChange(.breaking, subject, "definition changed: past numbers change"))
            } else if before != after {
                changes.append(CatalogChange(.revision, subject, "title, spec reference or written definition changed"))
            }
        }
        for after in new where !oldIDs.contains(after[keyPath: id]) {
            changes.append(CatalogChange(.addition, "\(kind) \(after[keyPath: id])", "added"))
        }
        return changes
    }
}

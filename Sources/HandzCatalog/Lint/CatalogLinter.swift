import HandzAnalyticsCore
import HandzQuery

/// The catalog checks itself (`handz-analytics catalog lint`): the naming standard and its
/// exceptions (CH33 §4), PII keys (§8.1), every string property closed or formatted (§1), ranges
/// on integers, every §6 event and §1 attempt event present, every funnel step resolving to an
/// enabled event (§5.1), every KPI (§5.2) present and well-formed, no dangling references, and every
/// property classified for Apple's privacy manifest (issue 23).
public enum CatalogLinter {
    public static func lint(_ loaded: LoadedCatalog) -> [CatalogProblem] {
        var lint = Lint(catalog: loaded.catalog, sources: loaded.sources)
        lint.checkManifest()
        lint.checkProperties()
        lint.checkEnvelope()
        lint.checkEvents()
        lint.checkNaming()
        lint.checkPrivacyPolicy()
        lint.checkSpecCoverage()
        lint.checkFunnels()
        lint.checkKPIs()
        lint.checkQACoverage(loaded.qaRules)
        lint.checkUnusedProperties()
        lint.checkCollectedData(loaded.collectedData)
        return lint.problems.sorted()
    }
}

struct Lint {
    let catalog: Catalog
    let sources: CatalogSourceMap
    let keyLint: PIIKeyLint
    var problems: [CatalogProblem] = []

    init(catalog: Catalog, sources: CatalogSourceMap) {
        self.catalog = catalog
        self.sources = sources
        self.keyLint = PIIKeyLint(policy: catalog.privacy)
    }

    mutating func error(_ location: CatalogLocation, _ message: String) {
        problems.append(CatalogProblem(location, message))
    }

    mutating func warning(_ location: CatalogLocation, _ message: String) {
        problems.append(CatalogProblem(location, message, severity: .warning))
    }

    var topLevel: Set<String> { Set(catalog.envelope.required + catalog.envelope.optional) }

    mutating func checkManifest() {
        let parts = catalog.version.split(separator: ".")
        if parts.count != 3 || parts.contains(where: { Int($0) == nil }) {
            error(CatalogLocation(file: "catalog.yaml", line: 1), "catalog_version must be MAJOR.MINOR.PATCH")
        }
        if catalog.timeZones.isEmpty {
            error(CatalogLocation(file: "time_zones.yaml", line: 1), "the time zone list is empty")
        }
    }

    mutating func checkProperties() {
        for name in catalog.properties.keys.sorted() {
            let definition = catalog.properties[name]!
            let location = sources.property(name)
            if !isSnakeCase(name) { error(location, "property \(name) is not snake_case") }
            checkKey(name, location: location, what: "property")
            switch definition.type {
            case .string:
                // event_name is checked against the event list itself.
                if name == "event_name" { break }
                if definition.allowedValues == nil && definition.format == nil {
                    error(location, "string property \(name) has neither an enum nor a format: free-form strings are not allowed (CH33 §1)")
                }
                if definition.allowedValues != nil && definition.format != nil {
                    error(location, "property \(name) has both an enum and a format; choose one")
                }
                if let values = definition.allowedValues {
                    if values.isEmpty { error(location, "property \(name) has an empty enum") }
                    for value in values {
                        if let kind = PIIValueScanner.scan(value) {
                            error(location, "enum value of \(name) looks like \(kind.rawValue)")
                        }
                        if value.isEmpty || value.utf8.count > 64 { error(location, "enum values of \(name) must be 1-64 bytes") }
                    }
                }
                if definition.minimum != nil || definition.maximum != nil {
                    error(location, "string property \(name) cannot have minimum/maximum")
                }
            case .integer:
                if definition.minimum == nil || definition.maximum == nil {
                    error(location, "integer property \(name) needs both minimum and maximum")
                } else if definition.minimum! > definition.maximum! {
                    error(location, "property \(name): minimum is greater than maximum")
                }
                if definition.allowedValues != nil || definition.format != nil {
                    error(location, "integer property \(name) cannot have an enum or format")
                }
            case .boolean:
                if definition.allowedValues != nil || definition.format != nil || definition.minimum != nil || definition.maximum != nil {
                    error(location, "boolean property \(name) cannot have an enum, format or range")
                }
            }
            if definition.spec?.isEmpty ?? true { warning(location, "property \(name) has no spec reference") }
        }
    }

    /// PII key lint on a catalogued key or event name (CH33 §8.1).
    mutating func checkKey(_ key: String, location: CatalogLocation, what: String) {
        switch keyLint.check(key) {
        case .denied(let token):
            error(location, "\(what) \(key) contains the PII token '\(token)' (CH33 §8.1); rename it, or list it in privacy.yaml reviewed_identifiers with the reason")
        case .valueLike(let kind):
            error(location, "\(what) \(key) looks like \(kind.rawValue)")
        case .clean, .reviewed:
            break
        }
    }

    mutating func checkEnvelope() {
        let location = CatalogLocation(file: "envelope.yaml", line: 1)
        for name in SpecInventory.requiredGlobals where !catalog.envelope.required.contains(name) {
            error(location, "required global property \(name) (CH33 §3.2) is not in envelope.yaml required")
        }
        if !catalog.envelope.optional.contains("user_id") {
            error(location, "user_id (CH33 §3.1) must be an optional envelope property")
        }
        for name in catalog.envelope.required + catalog.envelope.optional + catalog.envelope.commonOptional {
            let at = sources.envelope[name] ?? location
            guard let definition = catalog.properties[name] else {
                error(at, "envelope names \(name), which is not in properties.yaml")
                continue
            }
            if catalog.envelope.required.contains(name) && !definition.isEnabled {
                error(at, "required envelope property \(name) is disabled")
            }
        }
        let common = Set(catalog.envelope.commonOptional)
        for name in common where topLevel.contains(name) {
            error(sources.envelope[name] ?? location, "\(name) is both a top-level and a common property")
        }
        for name in SpecInventory.commonProperties + SpecInventory.experimentProperties where catalog.properties[name] == nil {
            error(CatalogLocation(file: "properties.yaml", line: 1), "CH33 §3.2/§11 property \(name) is not catalogued")
        }
    }

    mutating func checkEvents() {
        for event in catalog.events {
            let location = sources.event(event.name)
            if event.spec.isEmpty { error(location, "event \(event.name) has no spec reference") }
            if !catalog.naming.domains.contains(event.domain) {
                error(location, "event \(event.name): domain '\(event.domain)' is not a §4 domain")
            } else if let nameDomain = catalog.naming.domain(of: event.name), nameDomain != event.domain {
                error(location, "event \(event.name) is named in the \(nameDomain) domain but declares domain \(event.domain)")
            }
            checkKey(event.name, location: location, what: "event")
            var seen: Set<String> = []
            for rule in event.properties {
                let at = sources.eventProperties["\(event.name)/\(rule.name)"] ?? location
                seen.insert(rule.name)
                guard let definition = catalog.properties[rule.name] else {
                    error(at, "event \(event.name) uses \(rule.name), which is not in properties.yaml")
                    continue
                }
                if topLevel.contains(rule.name) {
                    error(at, "event \(event.name): \(rule.name) is a top-level envelope property; list it under global_properties")
                }
                if event.isEnabled && !definition.isEnabled {
                    error(at, "enabled event \(event.name) uses the disabled placeholder property \(rule.name)")
                }
                if let values = rule.allowedValues {
                    guard let all = definition.allowedValues else {
                        error(at, "event \(event.name) narrows \(rule.name) to an enum, but the property has none")
                        continue
                    }
                    for value in values where !all.contains(value) {
                        error(at, "event \(event.name): '\(value)' is not a value of \(rule.name)")
                    }
                }
                if rule.minimum != nil || rule.maximum != nil {
                    guard definition.type == .integer else {
                        error(at, "event \(event.name) narrows the range of non-integer \(rule.name)")
                        continue
                    }
                    if let minimum = rule.minimum, minimum < (definition.minimum ?? .min) {
                        error(at, "event \(event.name): minimum of \(rule.name) is below the property's")
                    }
                    if let maximum = rule.maximum, maximum > (definition.maximum ?? .max) {
                        error(at, "event \(event.name): maximum of \(rule.name) is above the property's")
                    }
                }
            }
            for name in event.globalProperties where !topLevel.contains(name) {
                error(location, "event \(event.name): global_properties lists \(name), which is not an envelope property")
            }
        }
    }

    mutating func checkNaming() {
        let naming = catalog.naming
        for event in catalog.events {
            let location = sources.event(event.name)
            guard isSnakeCase(event.name) else {
                error(location, "event \(event.name) is not snake_case (CH33 §4)")
                continue
            }
            let violation = naming.violation(of: event.name)
            let isException = naming.exceptions[event.name] != nil
            if let violation, !isException {
                error(location, "event \(event.name) breaks the CH33 §4 naming standard: it \(violation). Rename it, or list it in naming.yaml exceptions with the reason")
            }
            if violation == nil, isException {
                error(sources.namingExceptions[event.name] ?? location, "naming exception for \(event.name) is not needed: the name follows the standard")
            }
        }
        let names = Set(catalog.events.map(\.name))
        for (name, reason) in naming.exceptions {
            let location = sources.namingExceptions[name] ?? CatalogLocation(file: "naming.yaml", line: 1)
            if !names.contains(name) { error(location, "naming exception for \(name), which is not a catalogued event") }
            if reason.isEmpty { error(location, "naming exception for \(name) has no reason") }
        }
        for (alias, domain) in naming.domainAliases where !naming.domains.contains(domain) {
            error(CatalogLocation(file: "naming.yaml", line: 1), "domain alias \(alias) points to \(domain), which is not a domain")
        }
    }

    mutating func checkPrivacyPolicy() {
        if catalog.privacy.deniedKeyTokens.isEmpty {
            error(CatalogLocation(file: "privacy.yaml", line: 1), "the PII key denylist is empty")
        }
        for token in ["email", "phone", "name", "notes", "description", "address", "password", "ip"]
        where !catalog.privacy.deniedKeyTokens.contains(token) {
            error(CatalogLocation(file: "privacy.yaml", line: 1), "the denylist must contain '\(token)' (CH33 §8.1)")
        }
        let keys = Set(catalog.properties.keys).union(catalog.events.map(\.name))
        for (key, reason) in catalog.privacy.reviewedIdentifiers {
            let location = sources.reviewedIdentifiers[key] ?? CatalogLocation(file: "privacy.yaml", line: 1)
            if !keys.contains(key) { error(location, "reviewed identifier \(key) is not a catalogued property or event") }
            if keyLint.deniedToken(in: key) == nil { error(location, "reviewed identifier \(key) contains no denied token; remove it") }
            if reason.isEmpty { error(location, "reviewed identifier \(key) has no reason") }
        }
    }

    mutating func checkSpecCoverage() {
        let byName = Dictionary(catalog.events.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let location = CatalogLocation(file: "events", line: 1)
        for name in SpecInventory.section6Events + SpecInventory.attemptEvents {
            guard let event = byName[name] else {
                error(location, "CH33 §6/§1 event \(name) is not catalogued")
                continue
            }
            if !event.isEnabled { error(sources.event(name), "CH33 §6/§1 event \(name) must be enabled") }
        }
        for name in SpecInventory.placeholderEvents {
            guard let event = byName[name] else {
                error(location, "CH08 §9 / CH30 placeholder \(name) is not catalogued")
                continue
            }
            if event.isEnabled { error(sources.event(name), "\(name) is a placeholder and must stay disabled until reviewed") }
        }
        let specNames = Set(SpecInventory.section6Events + SpecInventory.attemptEvents)
        for event in catalog.events where event.isEnabled && !specNames.contains(event.name) && (event.note ?? "").isEmpty {
            error(sources.event(event.name), "event \(event.name) is not in CH33 §6; write in `note` why it was added")
        }
    }

    mutating func checkFunnels() {
        let byName = Dictionary(catalog.events.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (id, specSteps) in SpecInventory.funnels.sorted(by: { $0.key < $1.key }) {
            guard let funnel = catalog.funnels.first(where: { $0.id == id }) else {
                error(CatalogLocation(file: "funnels.yaml", line: 1), "funnel \(id) (CH33 §5.1) is not defined")
                continue
            }
            let location = sources.funnels[id] ?? CatalogLocation(file: "funnels.yaml", line: 1)
            if funnel.steps.count != specSteps.count {
                error(location, "funnel \(id) has \(funnel.steps.count) steps; CH33 §5.1 lists \(specSteps.count)")
            }
            for (index, specName) in specSteps.enumerated() where index < funnel.steps.count {
                let step = funnel.steps[index]
                let alternatives = specName.split(separator: "|").map(String.init)
                let names = step.specName.map { [$0] } ?? step.events
                if Set(alternatives) != Set(names) && !(alternatives.count == 1 && step.specName == alternatives[0]) {
                    error(sources.funnelSteps["\(id)/\(index + 1)"] ?? location,
                          "funnel \(id) step \(index + 1) should be \(specName) (CH33 §5.1); set spec_name when it maps to other events")
                }
                if step.specName != nil && (step.resolution ?? "").isEmpty {
                    error(sources.funnelSteps["\(id)/\(index + 1)"] ?? location, "funnel \(id) step \(index + 1) maps \(step.specName!) without a resolution")
                }
            }
        }
        for funnel in catalog.funnels {
            let location = sources.funnels[funnel.id] ?? CatalogLocation(file: "funnels.yaml", line: 1)
            if funnel.windowSeconds <= 0 { error(location, "funnel \(funnel.id) needs a positive window") }
            if funnel.steps.count < 2 { error(location, "funnel \(funnel.id) needs at least two steps") }
            if funnel.steps.count > FunnelDefinition.maxSteps {
                error(location, "funnel \(funnel.id) has \(funnel.steps.count) steps; at most \(FunnelDefinition.maxSteps)")
            }
            if funnel.success.isEmpty { error(location, "funnel \(funnel.id) needs a success description") }
            checkSuccessAndLinks(funnel, at: location, byName: byName)
            // The order and exclusions (issue 35 §3) by the query's own rules, then their events.
            do {
                try FunnelModes.check(FunnelQuery(funnel: funnel, fromMs: 0, toMs: 1))
            } catch {
                self.error(location, "funnel \(funnel.id): \(error.description)")
            }
            for (index, exclusion) in funnel.exclusions.enumerated() {
                for name in exclusion.events {
                    guard let event = byName[name], event.isEnabled else {
                        error(location, "funnel \(funnel.id) exclusion \(index + 1): \(name) is not an enabled catalogued event")
                        continue
                    }
                    for filter in exclusion.filters { checkFilter(filter, event: event, at: location, step: "funnel \(funnel.id) exclusion \(index + 1)") }
                }
            }
            for (index, step) in funnel.steps.enumerated() {
                let at = sources.funnelSteps["\(funnel.id)/\(index + 1)"] ?? location
                if step.events.isEmpty { error(at, "funnel \(funnel.id) step \(index + 1) names no event") }
                for name in step.events {
                    guard let event = byName[name] else {
                        error(at, "funnel \(funnel.id) step \(index + 1): \(name) is not a catalogued event")
                        continue
                    }
                    if !event.isEnabled { error(at, "funnel \(funnel.id) step \(index + 1): \(name) is a disabled placeholder") }
                    for filter in step.filters { checkFilter(filter, event: event, at: at, step: "funnel \(funnel.id) step \(index + 1)") }
                }
            }
        }
    }

    mutating func checkFilter(_ filter: PropertyFilter, event: EventDefinition, at: CatalogLocation, step: String) {
        let carried = topLevel.contains(filter.property) || catalog.allowedProperties(of: event).contains { $0.name == filter.property }
        guard carried, let definition = catalog.properties[filter.property] else {
            error(at, "\(step): event \(event.name) does not carry \(filter.property)")
            return
        }
        let rule = catalog.allowedProperties(of: event).first { $0.name == filter.property }
        let values = rule?.allowedValues ?? definition.allowedValues
        for value in filter.values {
            switch definition.type {
            case .boolean where value != "true" && value != "false":
                error(at, "\(step): \(filter.property) is a boolean; filter on true or false")
            case .integer where Int64(value) == nil:
                error(at, "\(step): \(filter.property) is an integer")
            case .string where values != nil && !values!.contains(value):
                error(at, "\(step): '\(value)' is not a value of \(filter.property) on \(event.name)")
            default: break
            }
        }
    }

    mutating func checkUnusedProperties() {
        var used = Set(catalog.envelope.required + catalog.envelope.optional + catalog.envelope.commonOptional)
        for event in catalog.events { used.formUnion(event.properties.map(\.name)) }
        for name in catalog.properties.keys.sorted() where !used.contains(name) {
            warning(sources.property(name), "property \(name) is not used by any event")
        }
    }
}

import Foundation
import HandzAnalyticsCore
import Yams

/// Reads the catalog directory (`catalog/`): the reviewed YAML files described in
/// `catalog/catalog.yaml`. Reading never stops at the first problem: everything readable is
/// loaded and every problem is returned with its file and line.
public enum CatalogLoader {
    public enum LoadError: Error, CustomStringConvertible {
        case notACatalog(String)
        case problems([CatalogProblem], directory: String)

        public var description: String {
            switch self {
            case .notACatalog(let path): "no catalog.yaml in \(path)"
            case .problems(let problems, let directory):
                problems.sorted().map { $0.formatted(catalogDirectory: directory) }.joined(separator: "\n")
            }
        }
    }

    /// Loads and lints the catalog, throwing when anything is wrong. Use this wherever a catalog
    /// is about to be enforced (validate, serve, import): a broken catalog must not run.
    ///
    /// A directory holding exactly the files the bundled catalog was made from (the repository's
    /// catalog as released with this binary) gives the bundled catalog, read from no YAML
    /// (``BundledCatalogGenerator``): the same catalog, checked when it was generated.
    public static func loadChecked(directory: String) throws -> Catalog {
        if BundledCatalog.files == BundledCatalogGenerator.comparedFiles(.directory(directory)) { return BundledCatalog.catalog }
        let loaded = try load(directory: directory)
        let problems = loaded.loadProblems + CatalogLinter.lint(loaded)
        let errors = problems.filter { $0.severity == .error }
        guard errors.isEmpty else { throw LoadError.problems(errors, directory: directory) }
        return loaded.catalog
    }

    /// Loads the catalog and reports problems found while reading. Throws only when the
    /// directory is not a catalog at all.
    public static func load(directory: String) throws -> LoadedCatalog {
        guard FileManager.default.fileExists(atPath: URL(fileURLWithPath: directory).appendingPathComponent("catalog.yaml").path) else {
            throw LoadError.notACatalog(directory)
        }
        var loaded = load(.directory(directory), label: directory)
        let qa = QARuleLoader.read(directory: URL(fileURLWithPath: directory).appendingPathComponent("qa").path, prefix: "qa/", catalog: loaded.catalog)
        loaded.qaRules = qa.rules
        loaded.loadProblems += qa.problems
        return loaded
    }

    /// The files every catalog has at its top level, in the order they are read (then
    /// `events/*.yaml`).
    static let topLevelFiles = ["catalog.yaml", "naming.yaml", "privacy.yaml", "properties.yaml", "envelope.yaml", "time_zones.yaml", "funnels.yaml", "kpis.yaml"]

    /// Loads a catalog's rules from `files` (no QA rules); `label` names it in problems.
    public static func load(_ files: CatalogFiles, label: String) -> LoadedCatalog {
        var state = LoaderState()
        state.readManifest(files)
        state.readNaming(files)
        state.readPrivacy(files)
        state.readProperties(files)
        state.readEnvelope(files)
        state.readTimeZones(files)
        for file in files.yamlFiles(in: "events") { state.readEvents(files, file: file) }
        state.readFunnels(files)
        state.readKPIs(files)
        var loaded = LoadedCatalog(catalog: state.catalog, sources: state.sources, loadProblems: state.problems, directory: label)
        loaded.collectedData = state.collectedData
        return loaded
    }
}

struct LoaderState {
    var catalog = Catalog(
        version: "", properties: [:], envelope: EnvelopeDefinition(required: [], optional: [], commonOptional: []),
        events: [], naming: NamingStandard(domains: [], verbs: []),
        privacy: PrivacyPolicy(deniedKeyTokens: [], reviewedIdentifiers: [:]), timeZones: []
    )
    var sources = CatalogSourceMap()
    var problems: [CatalogProblem] = []
    var collectedData = CollectedDataPolicy()

    /// Parses one file; returns its root mapping pairs and a reader for its values.
    mutating func open(_ root: CatalogFiles, _ file: String, allowed: Set<String>, required: Bool = true) -> (YAMLReader, [String: Node])? {
        guard let text = root.text(file) else {
            if required { problems.append(CatalogProblem(CatalogLocation(file: file, line: 1), "missing or unreadable file")) }
            return nil
        }
        sources.files.append(file)
        var reader = YAMLReader(file: file)
        guard let node = Self.compose(text, file: file, problems: &problems) else { return nil }
        var values: [String: Node] = [:]
        for pair in reader.pairs(node, context: file, allowed: allowed) { values[pair.key] = pair.value }
        problems += reader.problems
        reader.problems = []
        return (reader, values)
    }

    /// Parses YAML text; on failure records the problem (duplicate keys at the duplicate's line,
    /// syntax errors at theirs) and returns nil.
    ///
    /// Plain scalars are left untyped (Yams' `basic` resolver): the reader takes every value as
    /// its text and checks it itself (``YAMLReader``), so YAML 1.1's implicit types (`yes`, `0x1F`,
    /// dates) never apply, and two keys are duplicates exactly when their text is the same. It is
    /// also what every command pays at start: the default resolver matched each scalar against
    /// regular expressions, twice, for the duplicate-key check's hashing (6 % of a whole
    /// `funnel F0` process, perf; issue 33).
    static func compose(_ text: String, file: String, problems: inout [CatalogProblem]) -> Node?? {
        do {
            return .some(try Yams.compose(yaml: text, .basic))
        } catch YamlError.duplicatedKeysInMapping(let duplicates, let context) {
            for key in duplicates.sorted() {
                let line = secondOccurrence(of: key, in: text, from: context.mark.line) ?? context.mark.line
                problems.append(CatalogProblem(CatalogLocation(file: file, line: line), "duplicate key '\(key)'"))
            }
        } catch let error as YamlError {
            problems.append(CatalogProblem(CatalogLocation(file: file, line: line(of: error)), "YAML syntax: \(summary(of: error))"))
        } catch {
            problems.append(CatalogProblem(CatalogLocation(file: file, line: 1), "YAML syntax error"))
        }
        return nil
    }

    /// The line of the second `key:` at one indentation from `line` on (Yams reports where the
    /// mapping starts; the duplicate is what needs fixing).
    static func secondOccurrence(of key: String, in text: String, from line: Int) -> Int? {
        var firstIndent: Int?
        for (index, content) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where index + 1 >= line {
            let trimmed = content.drop { $0 == " " }
            guard trimmed.hasPrefix(key + ":") else { continue }
            let indent = content.count - trimmed.count
            if let firstIndent {
                if indent == firstIndent { return index + 1 }
            } else {
                firstIndent = indent
            }
        }
        return nil
    }

    static func line(of error: YamlError) -> Int {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): return mark.line
        default: return 1
        }
    }

    static func summary(of error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _): return problem
        default: return "invalid YAML"
        }
    }

    mutating func finish(_ reader: YAMLReader) { problems += reader.problems }

    mutating func readManifest(_ root: CatalogFiles) {
        guard case (var reader, let values)? = open(root, "catalog.yaml", allowed: ["catalog_version", "spec", "limits", "retired_versions"]) else { return }
        catalog.version = reader.string(values["catalog_version"], "catalog_version") ?? ""
        if values["catalog_version"] == nil { reader.problem(nil, "catalog_version is required") }
        if values["catalog_version"] != nil, CatalogVersion(catalog.version) == nil {
            reader.problem(values["catalog_version"], "catalog_version must be MAJOR.MINOR.PATCH")
        }
        catalog.retiredVersions = reader.strings(values["retired_versions"], "retired_versions")
        for version in catalog.retiredVersions where CatalogVersion(version) == nil || version == catalog.version {
            reader.problem(values["retired_versions"], "retired_versions holds MAJOR.MINOR.PATCH versions older than catalog_version")
        }
        var limits = CatalogLimits()
        for (key, _, value) in reader.pairs(values["limits"], context: "limits",
                                           allowed: ["max_event_bytes", "max_nesting_depth", "max_scan_depth", "max_issues_per_event"]) {
            guard let number = reader.integer(value, "limits.\(key)"), number > 0 else { continue }
            switch key {
            case "max_event_bytes": limits.maxEventBytes = Int(number)
            case "max_nesting_depth": limits.maxNestingDepth = Int(number)
            case "max_scan_depth": limits.maxScanDepth = Int(min(number, 64))
            default: limits.maxIssuesPerEvent = Int(number)
            }
        }
        catalog.limits = limits
        finish(reader)
    }

    mutating func readNaming(_ root: CatalogFiles) {
        guard case (var reader, let values)? = open(root, "naming.yaml", allowed: ["domains", "verbs", "domain_aliases", "exceptions"]) else { return }
        catalog.naming.domains = reader.strings(values["domains"], "domains")
        catalog.naming.verbs = reader.strings(values["verbs"], "verbs")
        for (key, _, value) in reader.pairs(values["domain_aliases"], context: "domain_aliases") {
            catalog.naming.domainAliases[key] = reader.string(value, "domain_aliases.\(key)")
        }
        for (key, keyNode, value) in reader.pairs(values["exceptions"], context: "exceptions") {
            catalog.naming.exceptions[key] = reader.string(value, "exceptions.\(key)") ?? ""
            sources.namingExceptions[key] = reader.location(keyNode)
        }
        finish(reader)
    }

    mutating func readPrivacy(_ root: CatalogFiles) {
        guard case (var reader, let values)? = open(root, "privacy.yaml", allowed: ["denied_key_tokens", "denied_key_substrings", "reviewed_identifiers", "collected_data"]) else { return }
        catalog.privacy.deniedKeyTokens = reader.strings(values["denied_key_tokens"], "denied_key_tokens")
        catalog.privacy.deniedKeySubstrings = reader.strings(values["denied_key_substrings"], "denied_key_substrings")
        for (key, keyNode, value) in reader.pairs(values["reviewed_identifiers"], context: "reviewed_identifiers") {
            catalog.privacy.reviewedIdentifiers[key] = reader.string(value, "reviewed_identifiers.\(key)") ?? ""
            sources.reviewedIdentifiers[key] = reader.location(keyNode)
        }
        let fields: Set<String> = ["linked", "tracking", "purposes", "why", "properties"]
        for (key, keyNode, value) in reader.pairs(values["collected_data"], context: "collected_data") {
            let context = "collected_data.\(key)"
            let entries = Dictionary(uniqueKeysWithValues: reader.pairs(value, context: context, allowed: fields).map { ($0.key, $0.value) })
            for field in fields.sorted() where entries[field] == nil { reader.problem(keyNode, "\(context): missing '\(field)'") }
            collectedData.types.append(CollectedDataPolicy.DataType(
                key: key, linked: reader.boolean(entries["linked"], "\(context).linked") ?? true,
                tracking: reader.boolean(entries["tracking"], "\(context).tracking") ?? false,
                purposes: reader.strings(entries["purposes"], "\(context).purposes"),
                why: reader.string(entries["why"], "\(context).why") ?? "",
                properties: reader.strings(entries["properties"], "\(context).properties"),
                location: reader.location(keyNode)))
        }
        finish(reader)
    }

    mutating func readProperties(_ root: CatalogFiles) {
        guard case (var reader, let values)? = open(root, "properties.yaml", allowed: ["properties"]) else { return }
        let fields: Set<String> = ["type", "enum", "format", "minimum", "maximum", "enabled", "spec", "description"]
        for (name, keyNode, value) in reader.pairs(values["properties"], context: "properties") {
            sources.properties[name] = reader.location(keyNode)
            var definition = PropertyDefinition(name: name, type: .string)
            var sawType = false
            for (field, fieldNode, fieldValue) in reader.pairs(value, context: "property \(name)", allowed: fields) {
                switch field {
                case "type":
                    guard let text = reader.string(fieldValue, "\(name).type") else { continue }
                    if let type = PropertyType(rawValue: text) { definition.type = type; sawType = true } else {
                        reader.problem(fieldNode, "property \(name): unknown type '\(text)' (expected string, integer, boolean)")
                    }
                case "enum": definition.allowedValues = reader.strings(fieldValue, "\(name).enum")
                case "format":
                    guard let text = reader.string(fieldValue, "\(name).format") else { continue }
                    if let format = StringFormat(rawValue: text) { definition.format = format } else {
                        reader.problem(fieldNode, "property \(name): unknown format '\(text)' (expected \(StringFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                case "minimum": definition.minimum = reader.integer(fieldValue, "\(name).minimum")
                case "maximum": definition.maximum = reader.integer(fieldValue, "\(name).maximum")
                case "enabled": definition.isEnabled = reader.boolean(fieldValue, "\(name).enabled") ?? true
                case "spec": definition.spec = reader.string(fieldValue, "\(name).spec")
                default: definition.description = reader.string(fieldValue, "\(name).description") ?? ""
                }
            }
            if !sawType { reader.problem(keyNode, "property \(name): `type` is required") }
            catalog.properties[name] = definition
        }
        finish(reader)
    }

    mutating func readEnvelope(_ root: CatalogFiles) {
        guard case (var reader, let values)? = open(root, "envelope.yaml", allowed: ["required", "optional", "common_optional"]) else { return }
        catalog.envelope.required = reader.strings(values["required"], "required")
        catalog.envelope.optional = reader.strings(values["optional"], "optional")
        catalog.envelope.commonOptional = reader.strings(values["common_optional"], "common_optional")
        for key in ["required", "optional", "common_optional"] {
            for item in values[key]?.sequence ?? [] {
                if let name = item.scalar?.string { sources.envelope[name] = reader.location(item) }
            }
        }
        finish(reader)
    }

    mutating func readTimeZones(_ root: CatalogFiles) {
        guard case (var reader, let values)? = open(root, "time_zones.yaml", allowed: ["time_zones"]) else { return }
        catalog.timeZones = reader.strings(values["time_zones"], "time_zones")
        finish(reader)
    }

    mutating func readEvents(_ root: CatalogFiles, file: String) {
        guard case (var reader, let values)? = open(root, file, allowed: ["spec", "events"]) else { return }
        let fileSpec = reader.string(values["spec"], "spec") ?? ""
        let fields: Set<String> = ["domain", "status", "description", "spec", "properties", "global_properties", "note"]
        for (name, keyNode, value) in reader.pairs(values["events"], context: "events") {
            if let previous = sources.events[name] {
                reader.problem(keyNode, "event \(name) is already defined at \(previous.file):\(previous.line)")
                continue
            }
            sources.events[name] = reader.location(keyNode)
            var event = EventDefinition(name: name, domain: "", spec: fileSpec)
            for (field, fieldNode, fieldValue) in reader.pairs(value, context: "event \(name)", allowed: fields) {
                switch field {
                case "domain": event.domain = reader.string(fieldValue, "\(name).domain") ?? ""
                case "status":
                    let text = reader.string(fieldValue, "\(name).status") ?? ""
                    if let status = EventStatus(rawValue: text) { event.status = status } else {
                        reader.problem(fieldNode, "event \(name): status must be enabled or placeholder")
                    }
                case "description": event.description = reader.string(fieldValue, "\(name).description") ?? ""
                case "spec": event.spec = reader.string(fieldValue, "\(name).spec") ?? fileSpec
                case "note": event.note = reader.string(fieldValue, "\(name).note")
                case "global_properties": event.globalProperties = reader.strings(fieldValue, "\(name).global_properties")
                default: event.properties = readEventProperties(&reader, event: name, fieldValue)
                }
            }
            catalog.events.append(event)
        }
        finish(reader)
    }

    mutating func readEventProperties(_ reader: inout YAMLReader, event: String, _ node: Node) -> [EventPropertyRule] {
        var rules: [EventPropertyRule] = []
        for (name, keyNode, value) in reader.pairs(node, context: "event \(event) properties") {
            sources.eventProperties["\(event)/\(name)"] = reader.location(keyNode)
            if let scalar = value.scalar {
                switch scalar.string {
                case "required": rules.append(EventPropertyRule(name: name, isRequired: true))
                case "optional": rules.append(EventPropertyRule(name: name, isRequired: false))
                default: reader.problem(value, "event \(event): property \(name) must be required, optional or a mapping")
                }
                continue
            }
            var rule = EventPropertyRule(name: name, isRequired: true)
            for (field, _, fieldValue) in reader.pairs(value, context: "event \(event) property \(name)", allowed: ["required", "enum", "minimum", "maximum"]) {
                switch field {
                case "required": rule.isRequired = reader.boolean(fieldValue, "\(event).\(name).required") ?? true
                case "enum": rule.allowedValues = reader.strings(fieldValue, "\(event).\(name).enum")
                case "minimum": rule.minimum = reader.integer(fieldValue, "\(event).\(name).minimum")
                default: rule.maximum = reader.integer(fieldValue, "\(event).\(name).maximum")
                }
            }
            rules.append(rule)
        }
        return rules
    }

    mutating func readFunnels(_ root: CatalogFiles) {
        guard case (var reader, let values)? = open(root, "funnels.yaml", allowed: ["funnels"], required: false) else { return }
        let fields: Set<String> = ["title", "spec", "window", "success", "steps", "note", "order", "exclude"]
        for (id, keyNode, value) in reader.pairs(values["funnels"], context: "funnels") {
            sources.funnels[id] = reader.location(keyNode)
            var funnel = FunnelDefinition(id: id, title: "", spec: "", windowSeconds: 0, success: "", steps: [])
            for (field, _, fieldValue) in reader.pairs(value, context: "funnel \(id)", allowed: fields) {
                switch field {
                case "title": funnel.title = reader.string(fieldValue, "\(id).title") ?? ""
                case "spec": funnel.spec = reader.string(fieldValue, "\(id).spec") ?? ""
                case "window": funnel.windowSeconds = reader.duration(fieldValue, "\(id).window") ?? 0
                case "success": (funnel.success, funnel.successCondition) = readSuccess(&reader, funnel: id, fieldValue)
                case "note": break
                case "order":
                    // Issue 35 §3: how the steps follow one another (HandzQuery docs, "Funnel semantics").
                    if let order = FunnelOrder(rawValue: reader.string(fieldValue, "\(id).order") ?? "") { funnel.order = order } else {
                        reader.problem(fieldValue, "funnel \(id) order must be one of \(FunnelOrder.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                case "exclude":
                    for (index, node) in (fieldValue.sequence ?? []).enumerated() {
                        funnel.exclusions.append(readExclusion(&reader, context: "funnel \(id) exclusion \(index + 1)", node))
                    }
                default:
                    for (index, stepNode) in (fieldValue.sequence ?? []).enumerated() {
                        sources.funnelSteps["\(id)/\(index + 1)"] = reader.location(stepNode)
                        funnel.steps.append(readStep(&reader, funnel: id, index: index + 1, stepNode))
                    }
                }
            }
            if funnel.successCondition?.afterStep == 0 { funnel.successCondition?.afterStep = funnel.steps.count }
            // An exclusion without `between` watches every step (0 here means "not given").
            for index in funnel.exclusions.indices where funnel.exclusions[index].toStep == 0 {
                (funnel.exclusions[index].fromStep, funnel.exclusions[index].toStep) = (1, funnel.steps.count)
            }
            catalog.funnels.append(funnel)
        }
        finish(reader)
    }

    func readStep(_ reader: inout YAMLReader, funnel: String, index: Int, _ node: Node) -> FunnelStep {
        var step = FunnelStep(events: [])
        let context = "funnel \(funnel) step \(index)"
        for (field, _, value) in reader.pairs(node, context: context, allowed: ["events", "where", "spec_name", "resolution", "actor", "link"]) {
            switch field {
            case "events": step.events = reader.strings(value, "\(context) events")
            case "spec_name": step.specName = reader.string(value, "\(context) spec_name")
            case "resolution": step.resolution = reader.string(value, "\(context) resolution")
            case "actor":
                let actor = reader.string(value, "\(context) actor")
                if actor != "other" && actor != "same" { reader.problem(value, "\(context) actor must be same or other") }
                step.otherActor = actor == "other"
            case "link": step.link = readLink(&reader, context: "\(context) link", value)
            default: step.filters = readFilters(&reader, context: "\(context) where", value)
            }
        }
        return step
    }

    func readFilters(_ reader: inout YAMLReader, context: String, _ node: Node) -> [PropertyFilter] {
        reader.pairs(node, context: context).map { property, _, values in
            PropertyFilter(property: property, values: reader.strings(values, "\(context) \(property)"))
        }
    }

    /// `{events, where, between: [A, B]}`: an exclusion step (issue 35 §3); without `between`,
    /// every step is watched (resolved once the steps are read: 0 here means "all").
    func readExclusion(_ reader: inout YAMLReader, context: String, _ node: Node) -> FunnelExclusion {
        var exclusion = FunnelExclusion(events: [], fromStep: 0, toStep: 0)
        for (field, _, value) in reader.pairs(node, context: context, allowed: ["events", "where", "between"]) {
            switch field {
            case "events": exclusion.events = reader.strings(value, "\(context) events")
            case "where": exclusion.filters = readFilters(&reader, context: "\(context) where", value)
            default:
                let bounds = (value.sequence ?? []).map { reader.integer($0, "\(context) between") ?? 0 }
                guard bounds.count == 2 else {
                    reader.problem(value, "\(context) between is [A, B], two step numbers")
                    continue
                }
                (exclusion.fromStep, exclusion.toStep) = (Int(bounds[0]), Int(bounds[1]))
            }
        }
        return exclusion
    }

    /// `{step: N, property: P, step_property: Q}` (Q defaults to P).
    func readLink(_ reader: inout YAMLReader, context: String, _ node: Node) -> FunnelLink {
        var link = FunnelLink(step: 0, property: "")
        var stepProperty: String?
        for (field, _, value) in reader.pairs(node, context: context, allowed: ["step", "property", "step_property"]) {
            switch field {
            case "step": link.step = Int(reader.integer(value, "\(context) step") ?? 0)
            case "property": link.property = reader.string(value, "\(context) property") ?? ""
            default: stepProperty = reader.string(value, "\(context) step_property")
            }
        }
        link.stepProperty = stepProperty ?? link.property
        return link
    }

    /// `success: {description, events, where, after_step, differs, first_by}`; `after_step` defaults to the
    /// last step (resolved by the linter's checks once the steps are read: 0 here means "last").
    func readSuccess(_ reader: inout YAMLReader, funnel: String, _ node: Node) -> (String, FunnelSuccess?) {
        let context = "funnel \(funnel) success"
        var text = ""
        var success = FunnelSuccess(events: [], afterStep: 0)
        for (field, _, value) in reader.pairs(node, context: context, allowed: ["description", "events", "where", "after_step", "differs", "first_by"]) {
            switch field {
            case "description": text = reader.string(value, "\(context) description") ?? ""
            case "events": success.events = reader.strings(value, "\(context) events")
            case "after_step": success.afterStep = Int(reader.integer(value, "\(context) after_step") ?? 0)
            case "differs": success.differs = readLink(&reader, context: "\(context) differs", value)
            case "first_by": success.firstBy = reader.string(value, "\(context) first_by")
            default: success.filters = readFilters(&reader, context: "\(context) where", value)
            }
        }
        return (text, success)
    }
}

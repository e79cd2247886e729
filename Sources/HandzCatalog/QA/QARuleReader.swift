import HandzAnalyticsCore
import HandzQA
import Yams

/// Reads QA rule files (`catalog/qa/*.yaml`, CH33 §8.2 and §13 as sequence rules) and checks
/// them against the catalog as it reads: an unknown kind, field, event or property, a filter
/// value outside the catalog's closed set, or a property an event does not carry is a problem
/// at its file and line (`catalog lint` prints them as `path:line: error: message`).
struct QARuleReader {
    let catalog: Catalog
    var rules: [QARule] = []
    var unchecked: [QAUncheckedItem] = []
    var locations: [String: CatalogLocation] = [:]
    var problems: [CatalogProblem] = []
    let topLevel: Set<String>

    init(catalog: Catalog) {
        self.catalog = catalog
        topLevel = Set(catalog.envelope.required + catalog.envelope.optional)
    }

    /// The fields each kind takes (besides `title`, `spec`, `kind`) and which are required.
    static let fields: [String: (required: Set<String>, optional: Set<String>)] = [
        "exactly_once_per": (["event", "scope"], ["reset_after"]),
        "followed_by": (["event", "then", "within", "scope"], ["same"]),
        "preceded_by": (["event", "after", "within", "scope"], ["same"]),
        "emitted_together": (["event", "with"], ["within", "same"]),
        "chain": (["event", "property", "equals_previous", "scope"], []),
        "silence_while": (["property", "equals", "scope"], []),
        "decrement": (["event", "property", "scope"], ["by", "reset", "reset_property"]),
        "min_interval": (["event", "interval", "scope"], []),
        "funnel_completeness": (["funnels"], []),
        "catalogued": ([], []),
    ]

    mutating func read(file: String, text: String) {
        var reader = YAMLReader(file: file)
        guard let root = LoaderState.compose(text, file: file, problems: &problems) else { return }
        var values: [String: Node] = [:]
        for pair in reader.pairs(root, context: file, allowed: ["spec", "rules", "unchecked"]) { values[pair.key] = pair.value }
        for (id, keyNode, value) in reader.pairs(values["rules"], context: "rules") {
            if locations[id] != nil {
                reader.problem(keyNode, "rule \(id) is defined twice (first at \(locations[id]!.file):\(locations[id]!.line))")
                continue
            }
            locations[id] = reader.location(keyNode)
            if let rule = readRule(id, keyNode, value, &reader) { rules.append(rule) }
        }
        for item in values["unchecked"]?.sequence ?? [] {
            var entry = QAUncheckedItem(spec: "", item: "", why: "")
            for (field, _, node) in reader.pairs(item, context: "unchecked", allowed: ["spec", "item", "why"]) {
                let text = reader.string(node, "unchecked.\(field)") ?? ""
                switch field {
                case "spec": entry.spec = text
                case "item": entry.item = text
                default: entry.why = text
                }
            }
            if entry.spec.isEmpty || entry.item.isEmpty || entry.why.isEmpty {
                reader.problem(item, "an unchecked item needs spec, item and why (why it cannot be checked from events)")
            }
            unchecked.append(entry)
        }
        if values["unchecked"] != nil, values["unchecked"]?.sequence == nil { reader.problem(values["unchecked"], "unchecked must be a list") }
        problems += reader.problems
    }

    mutating func readRule(_ id: String, _ keyNode: Node, _ node: Node, _ reader: inout YAMLReader) -> QARule? {
        if !Self.isRuleID(id) { reader.problem(keyNode, "rule id \(id) must be lowercase words joined by _ and . (cold_start.app_open_once)") }
        guard let mapping = node.mapping else {
            reader.problem(node, "rule \(id) must be a mapping")
            return nil
        }
        guard let kindNode = mapping["kind"], let kind = reader.string(kindNode, "\(id).kind") else {
            reader.problem(node, "rule \(id) needs a kind (\(QARuleKind.names.joined(separator: ", ")))")
            return nil
        }
        guard let fields = Self.fields[kind] else {
            reader.problem(kindNode, "rule \(id): unknown kind '\(kind)' (expected \(QARuleKind.names.joined(separator: ", ")))")
            return nil
        }
        var given: [String: Node] = [:]
        let allowed = fields.required.union(fields.optional).union(["title", "spec", "kind"])
        for (field, _, value) in reader.pairs(node, context: "rule \(id)", allowed: allowed) { given[field] = value }
        var complete = true
        for field in fields.required.union(["title", "spec"]).sorted() where given[field] == nil {
            reader.problem(node, "rule \(id) (\(kind)) needs \(field)")
            complete = false
        }
        let title = reader.string(given["title"], "\(id).title") ?? ""
        let spec = reader.string(given["spec"], "\(id).spec") ?? ""
        if given["spec"] != nil, !spec.hasPrefix("CH") { reader.problem(given["spec"], "rule \(id): spec must name the section it comes from (CH33 §8.2 …)") }
        guard complete else { return nil }
        var check = RuleCheck(id: id, reader: reader, catalog: catalog, topLevel: topLevel)
        defer { reader = check.reader }
        guard let ruleKind = check.kind(kind, given) else { return nil }
        return QARule(id: id, title: title, spec: spec, kind: ruleKind)
    }

    static func isRuleID(_ id: String) -> Bool {
        !id.isEmpty && id.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
        }
    }
}

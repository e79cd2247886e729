import Foundation
import HandzAnalyticsCore
import Yams

/// Reads `kpis.yaml`: the KPIs of CH33 §5.2 (measure, parameters, written definition).
extension LoaderState {
    static let kpiFields: Set<String> = [
        "title", "spec", "measure", "target", "source", "population", "exclude", "property", "key", "sum", "window", "day",
        "divisor", "unit", "numerator", "denominator", "actor", "time_basis", "note",
    ]

    mutating func readKPIs(_ root: CatalogFiles) {
        guard case (var reader, let values)? = open(root, "kpis.yaml", allowed: ["kpis"], required: false) else { return }
        for (id, keyNode, value) in reader.pairs(values["kpis"], context: "kpis") {
            sources.kpis[id] = reader.location(keyNode)
            var kpi = KPIDefinition(id: id, measure: .actorShare)
            var measure: KPIMeasure?
            for (field, fieldNode, fieldValue) in reader.pairs(value, context: "kpi \(id)", allowed: Self.kpiFields) {
                let context = "\(id).\(field)"
                switch field {
                case "title": kpi.title = reader.string(fieldValue, context) ?? ""
                case "spec": kpi.spec = reader.string(fieldValue, context) ?? ""
                case "measure":
                    let name = reader.string(fieldValue, context) ?? ""
                    measure = KPIMeasure(rawValue: name)
                    if measure == nil {
                        reader.problem(fieldNode, "\(context): unknown measure '\(name)' (expected \(KPIMeasure.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                case "target": kpi.target = readMatch(&reader, fieldValue, context)
                case "source": kpi.source = readMatch(&reader, fieldValue, context)
                case "exclude": kpi.exclude = readMatch(&reader, fieldValue, context)
                case "population": kpi.population = (fieldValue.sequence ?? []).map { readMatch(&reader, $0, context) }
                case "property": kpi.property = reader.string(fieldValue, context)
                case "key": kpi.key = reader.string(fieldValue, context)
                case "sum":
                    for item in fieldValue.sequence ?? [] {
                        var sum = KPISum(event: "", property: "")
                        for (name, _, node) in reader.pairs(item, context: context, allowed: ["event", "property"]) {
                            if name == "event" { sum.event = reader.string(node, context) ?? "" } else { sum.property = reader.string(node, context) ?? "" }
                        }
                        kpi.sums.append(sum)
                    }
                case "window": kpi.windowSeconds = reader.duration(fieldValue, context)
                case "day": kpi.day = reader.integer(fieldValue, context)
                case "divisor": kpi.divisor = reader.integer(fieldValue, context) ?? 1
                case "unit": kpi.unit = reader.string(fieldValue, context)
                case "numerator": kpi.definition.numerator = reader.string(fieldValue, context) ?? ""
                case "denominator": kpi.definition.denominator = reader.string(fieldValue, context) ?? ""
                case "actor": kpi.definition.actor = reader.string(fieldValue, context) ?? ""
                case "time_basis": kpi.definition.timeBasis = reader.string(fieldValue, context) ?? ""
                default: kpi.note = reader.string(fieldValue, context)
                }
            }
            guard let measure else {
                if !reader.problems.contains(where: { $0.message.hasPrefix("\(id).measure") }) { reader.problem(value, "kpi \(id) needs a measure") }
                continue
            }
            kpi.measure = measure
            catalog.kpis.append(kpi)
        }
        finish(reader)
    }

    /// `{events: [...], where: {property: [values]}}`.
    func readMatch(_ reader: inout YAMLReader, _ node: Node, _ context: String) -> EventMatch {
        var match = EventMatch(events: [])
        for (field, _, value) in reader.pairs(node, context: context, allowed: ["events", "where"]) {
            if field == "events" {
                match.events = reader.strings(value, "\(context) events")
            } else {
                for (property, _, values) in reader.pairs(value, context: "\(context) where") {
                    match.filters.append(PropertyFilter(property: property, values: reader.strings(values, "\(context) where \(property)")))
                }
            }
        }
        return match
    }
}

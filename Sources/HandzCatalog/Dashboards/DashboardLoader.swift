import Foundation
import HandzAnalyticsCore
import HandzQuery
import Yams

/// Dashboards read from disk (`dashboards/*.yaml`), with where each panel was defined.
public struct LoadedDashboards: Sendable {
    public var dashboards: [DashboardDefinition]
    /// `id` → the dashboard's first line; `id/panel` → the panel's line.
    public var locations: [String: CatalogLocation]
    public var problems: [CatalogProblem]
    public var directory: String
}

/// Reads `dashboards/`: one YAML file per dashboard of CH33 §7. Like the catalog loader it never
/// stops at the first problem and reports each with its file and line.
public enum DashboardLoader {
    /// `dashboards/` next to the catalog directory (`catalog/../dashboards`).
    public static func directory(besideCatalog catalog: String) -> String {
        URL(fileURLWithPath: catalog).standardizedFileURL.deletingLastPathComponent().appendingPathComponent("dashboards").path
    }

    public static func load(directory: String) -> LoadedDashboards {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
        var state = LoaderState()
        var result = LoadedDashboards(dashboards: [], locations: [:], problems: [], directory: directory)
        if files.isEmpty {
            result.problems.append(CatalogProblem(CatalogLocation(file: ".", line: 1), "no dashboards (*.yaml) in \(directory)"))
        }
        for file in files {
            guard case (var reader, let values)? = state.open(.directory(directory), file, allowed: ["title", "spec", "description", "panels"]) else { continue }
            let id = String(file.dropLast(".yaml".count))
            var dashboard = DashboardDefinition(id: id, title: reader.string(values["title"], "title") ?? "", spec: reader.string(values["spec"], "spec") ?? "",
                                                description: reader.string(values["description"], "description") ?? "")
            result.locations[id] = CatalogLocation(file: file, line: 1)
            for node in values["panels"]?.sequence ?? [] {
                let panel = state.readPanel(&reader, node)
                if dashboard.panels.contains(where: { $0.id == panel.id }) { reader.problem(node, "panel \(panel.id) is defined twice") }
                result.locations["\(id)/\(panel.id)"] = reader.location(node)
                dashboard.panels.append(panel)
            }
            if values["panels"]?.sequence == nil { reader.problem(nil, "panels must be a list") }
            state.finish(reader)
            result.dashboards.append(dashboard)
        }
        result.problems += state.problems
        return result
    }

    /// Loads and lints the dashboards against the catalog, throwing on any error.
    public static func loadChecked(directory: String, catalog: Catalog) throws -> [DashboardDefinition] {
        let loaded = load(directory: directory)
        let errors = (loaded.problems + DashboardLinter.lint(loaded, catalog: catalog)).filter { $0.severity == .error }
        guard errors.isEmpty else { throw CatalogLoader.LoadError.problems(errors, directory: directory) }
        return loaded.dashboards
    }
}

extension LoaderState {
    static let panelFields: Set<String> = [
        "id", "title", "bullet", "chart", "funnel", "window", "kpi", "kpi_property", "query", "queries", "unit", "counts", "cumulative",
        "limit", "note", "missing",
    ]
    static let queryFields: Set<String> = [
        "label", "kind", "match", "denominator", "target", "count", "split", "properties", "first_per_key", "bucket_width", "quantiles",
        "rolling_days", "window", "session_key",
    ]

    mutating func readPanel(_ reader: inout YAMLReader, _ node: Node) -> PanelDefinition {
        var panel = PanelDefinition(id: "", title: "", bullet: "", chart: .stat)
        var window: Int64?
        var kpis: [String] = []
        var kpiProperty: String?
        var queries: [PanelSource] = []
        var funnel: String?
        let pairs = reader.pairs(node, context: "panel", allowed: Self.panelFields)
        let id = pairs.first { $0.key == "id" }.flatMap { reader.string($0.value, "panel id") } ?? ""
        if id.isEmpty { reader.problem(node, "a panel needs an id") }
        panel.id = id
        let context = "panel \(id)"
        for (field, fieldNode, value) in pairs {
            switch field {
            case "id": break
            case "title": panel.title = reader.string(value, "\(context) title") ?? ""
            case "bullet": panel.bullet = reader.string(value, "\(context) bullet") ?? ""
            case "chart":
                let name = reader.string(value, "\(context) chart") ?? ""
                if let chart = ChartKind(rawValue: name) { panel.chart = chart } else {
                    reader.problem(fieldNode, "\(context): unknown chart '\(name)' (expected \(ChartKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
            case "funnel": funnel = reader.string(value, "\(context) funnel")
            case "window": window = reader.duration(value, "\(context) window")
            case "kpi": kpis = value.sequence != nil ? reader.strings(value, "\(context) kpi") : [reader.string(value, "\(context) kpi") ?? ""]
            case "kpi_property": kpiProperty = reader.string(value, "\(context) kpi_property")
            case "query": queries.append(readQuery(&reader, value, context))
            case "queries": for item in value.sequence ?? [] { queries.append(readQuery(&reader, item, context)) }
            case "unit": panel.unit = reader.string(value, "\(context) unit") ?? ""
            case "counts":
                panel.counts = reader.strings(value, "\(context) counts").compactMap { name in
                    let count = EventQuery.Count(rawValue: name)
                    if count == nil { reader.problem(value, "\(context): unknown count '\(name)' (expected events, actors, sessions)") }
                    return count
                }
            case "cumulative": panel.cumulative = reader.boolean(value, "\(context) cumulative") ?? false
            case "limit": panel.limit = Int(reader.integer(value, "\(context) limit") ?? 10)
            case "note": panel.note = reader.string(value, "\(context) note")
            default: panel.missing = reader.string(value, "\(context) missing")
            }
        }
        if let funnel { panel.sources.append(PanelSource(label: funnel, kind: .funnel(id: funnel, windowSeconds: window))) }
        for kpi in kpis { panel.sources.append(PanelSource(label: kpi, kind: .kpi(id: kpi, property: kpiProperty))) }
        panel.sources += queries
        return panel
    }

    mutating func readQuery(_ reader: inout YAMLReader, _ node: Node, _ panel: String) -> PanelSource {
        var query = EventQuery(kind: .dailyCounts, match: EventMatch(events: []))
        var label = ""
        let context = "\(panel) query"
        for (field, fieldNode, value) in reader.pairs(node, context: context, allowed: Self.queryFields) {
            switch field {
            case "label": label = reader.string(value, "\(context) label") ?? ""
            case "kind":
                let name = reader.string(value, "\(context) kind") ?? ""
                if let kind = EventQuery.Kind(rawValue: name) { query.kind = kind } else {
                    reader.problem(fieldNode, "\(context): unknown kind '\(name)' (expected \(EventQuery.Kind.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
            case "match": query.match = readMatch(&reader, value, context)
            case "denominator": query.denominator = readMatch(&reader, value, context)
            case "target": query.target = readMatch(&reader, value, context)
            case "count":
                let name = reader.string(value, "\(context) count") ?? ""
                if let count = EventQuery.Count(rawValue: name) { query.count = count } else {
                    reader.problem(fieldNode, "\(context): unknown count '\(name)' (expected events, actors, sessions)")
                }
            case "split": query.split = reader.string(value, "\(context) split")
            case "properties": query.properties = reader.strings(value, "\(context) properties")
            case "first_per_key": query.firstPerKey = reader.string(value, "\(context) first_per_key")
            case "bucket_width": query.bucketWidth = reader.integer(value, "\(context) bucket_width") ?? 1
            case "quantiles": query.quantiles = reader.strings(value, "\(context) quantiles").compactMap { Int64($0) }
            case "rolling_days": query.rollingDays = reader.integer(value, "\(context) rolling_days") ?? 7
            case "session_key": query.sessionKey = reader.string(value, "\(context) session_key")
            default: query.windowSeconds = reader.duration(value, "\(context) window") ?? 0
            }
        }
        return PanelSource(label: label.isEmpty ? query.kind.rawValue : label, kind: .query(query))
    }
}

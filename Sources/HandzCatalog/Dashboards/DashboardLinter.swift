import HandzAnalyticsCore
import HandzQuery

/// `catalog lint` for `dashboards/` (CH33 §7, §13 "Dashboards in §7 can be created with
/// available events/properties"): every §7 bullet has a panel, every panel names a funnel, KPI or
/// named query that exists, every event and property a panel reads is catalogued and enabled,
/// grouped properties are closed sets, and each panel's chart can draw its sources.
public enum DashboardLinter {
    public static func lint(_ loaded: LoadedDashboards, catalog: Catalog) -> [CatalogProblem] {
        var lint = Lint(catalog: catalog, sources: CatalogSourceMap())
        let byID = Dictionary(loaded.dashboards.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (id, spec, bullets) in SpecInventory.dashboards {
            guard let dashboard = byID[id] else {
                lint.error(CatalogLocation(file: "\(id).yaml", line: 1), "dashboard \(id) (\(spec)) is not defined")
                continue
            }
            let at = loaded.locations[id] ?? CatalogLocation(file: "\(id).yaml", line: 1)
            if dashboard.spec != spec { lint.error(at, "dashboard \(id): spec must be \(spec)") }
            let covered = Set(dashboard.panels.map(\.bullet))
            for bullet in bullets where !covered.contains(bullet) {
                lint.error(at, "dashboard \(id): no panel for the \(spec) bullet \"\(bullet)\"")
            }
            for panel in dashboard.panels where !bullets.contains(panel.bullet) {
                lint.error(loaded.locations["\(id)/\(panel.id)"] ?? at, "panel \(panel.id): \"\(panel.bullet)\" is not a bullet of \(spec)")
            }
        }
        for dashboard in loaded.dashboards {
            if byID[dashboard.id] != nil, !SpecInventory.dashboards.contains(where: { $0.id == dashboard.id }) {
                lint.error(CatalogLocation(file: "\(dashboard.id).yaml", line: 1), "dashboard \(dashboard.id) is not one of the CH33 §7 dashboards")
            }
            if dashboard.title.isEmpty { lint.error(CatalogLocation(file: "\(dashboard.id).yaml", line: 1), "dashboard \(dashboard.id) needs a title") }
            for panel in dashboard.panels {
                lint.checkPanel(panel, at: loaded.locations["\(dashboard.id)/\(panel.id)"] ?? CatalogLocation(file: "\(dashboard.id).yaml", line: 1))
            }
        }
        return lint.problems.sorted()
    }
}

extension Lint {
    mutating func checkPanel(_ panel: PanelDefinition, at: CatalogLocation) {
        let name = "panel \(panel.id)"
        if panel.title.isEmpty || panel.bullet.isEmpty { error(at, "\(name) needs a title and the §7 bullet it answers") }
        if panel.sources.isEmpty && panel.missing == nil {
            error(at, "\(name) names no funnel, KPI or query (say what the catalog cannot supply with `missing`)")
        }
        if panel.chart == .line && panel.counts.isEmpty { error(at, "\(name): counts is empty") }
        if panel.limit < 1 { error(at, "\(name): limit must be positive") }
        for source in panel.sources {
            if !panel.chart.accepts(source) { error(at, "\(name): a \(panel.chart.rawValue) chart cannot draw \(source.label)") }
            switch source.kind {
            case .funnel(let id, let window):
                if !catalog.funnels.contains(where: { $0.id == id }) { error(at, "\(name): unknown funnel \(id)") }
                if let window, window <= 0 { error(at, "\(name): the window must be positive") }
            case .kpi(let id, let property):
                guard let kpi = catalog.kpis.first(where: { $0.id == id }) else {
                    error(at, "\(name): unknown KPI \(id)")
                    continue
                }
                if let property {
                    if kpi.measure != .latestValueDistribution { error(at, "\(name): kpi_property needs a distribution KPI") }
                    checkPanelProperty(property, on: kpi.target ?? EventMatch(events: []), type: .integer, panel: name, at: at)
                }
            case .query(let query):
                checkQuery(query, panel: name, at: at)
            }
        }
    }

    mutating func checkQuery(_ query: EventQuery, panel: String, at: CatalogLocation) {
        let matches: [(String, EventMatch?)] = [("match", query.match), ("denominator", query.denominator), ("target", query.target)]
        for (role, match) in matches {
            guard let match else {
                if (role == "denominator" && query.kind == .dailyRatio) || (role == "target" && query.kind == .followedBy) {
                    error(at, "\(panel): \(query.kind.rawValue) needs a \(role)")
                }
                continue
            }
            if match.events.isEmpty { error(at, "\(panel): the \(role) event list is empty") }
            for eventName in match.events {
                guard let event = catalog.event(named: eventName) else {
                    error(at, "\(panel): \(eventName) is not a catalogued event")
                    continue
                }
                if !event.isEnabled { error(at, "\(panel): \(eventName) is a disabled placeholder") }
                for filter in match.filters {
                    if catalog.properties[filter.property]?.isEnabled == false { error(at, "\(panel): \(filter.property) is a disabled placeholder") }
                    checkFilter(filter, event: event, at: at, step: panel)
                }
            }
        }
        for property in [query.split, query.firstPerKey, query.sessionKey].compactMap({ $0 }) + query.properties {
            checkPanelProperty(property, on: query.match, type: query.kind == .histogram ? .integer : nil, panel: panel, at: at)
        }
        if query.kind == .followedBy && query.windowSeconds <= 0 { error(at, "\(panel): followed_by needs a positive window") }
        if query.quantiles.contains(where: { $0 < 1 || $0 > 100 }) { error(at, "\(panel): quantiles are percents, 1-100") }
        // The builder has the last word on closed sets, integer types and parameters.
        do {
            _ = try EventQuerySQLBuilder(catalog: catalog, dialect: .sqlite).statements(query, fromMs: 0, toMs: 1)
        } catch {
            self.error(at, "\(panel): \(error.description)")
        }
    }

    /// The property exists in the catalog, is enabled, and every matched event carries it.
    mutating func checkPanelProperty(_ property: String, on match: EventMatch, type: PropertyType?, panel: String, at: CatalogLocation) {
        guard let definition = catalog.properties[property] else {
            error(at, "\(panel): \(property) is not a catalogued property")
            return
        }
        if !definition.isEnabled { error(at, "\(panel): \(property) is a disabled placeholder") }
        if let type, definition.type != type { error(at, "\(panel): \(property) must be an \(type.rawValue)") }
        if topLevel.contains(property) { return }
        for eventName in match.events {
            guard let event = catalog.event(named: eventName) else { continue }
            if !catalog.allowedProperties(of: event).contains(where: { $0.name == property }) {
                error(at, "\(panel): event \(eventName) does not carry \(property)")
            }
        }
    }
}

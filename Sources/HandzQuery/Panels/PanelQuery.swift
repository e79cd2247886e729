import HandzAnalyticsCore

/// What the served dashboards' controls change in a panel's queries (issue 16 §2). The
/// defaults are the dashboards as `dashboards/` defines them, which `dashboard render`, the
/// Grafana export and `sql panel` use.
public struct PanelControls: Sendable, Hashable {
    /// Who is counted in funnels and KPIs (CH33 §3.1). Event queries always count installs.
    public var actor: ActorKind
    /// Every funnel's window instead of its own (nil: each funnel's, or the panel's).
    public var windowSeconds: Int64?
    /// A closed-set property to break funnels and daily series down by, where it applies
    /// (``PanelQuery/resolve(_:catalog:fromMs:toMs:controls:)``).
    public var breakdown: String?

    public init(actor: ActorKind = .install, windowSeconds: Int64? = nil, breakdown: String? = nil) {
        self.actor = actor
        self.windowSeconds = windowSeconds
        self.breakdown = breakdown
    }
}

/// One panel source made concrete for a range and controls: the single path from a panel of
/// `dashboards/` to its queries. The static report and the served pages run it
/// (`StoreAnalysis.run`), `sql panel` prints its statements and the Grafana export prints them
/// with time macros, so all four always mean the same query.
public enum PanelQuery: Sendable, Equatable {
    case funnel(FunnelQuery)
    case kpi(KPIQuery)
    case events(EventQuery, fromMs: Int64, toMs: Int64)

    /// The query of `source` over `[fromMs, toMs)` with `controls`, and, when the breakdown does
    /// not apply to this source, why (shown under the panel; the panel is then shown whole).
    ///
    /// A breakdown applies to a funnel whose first step's events carry the property (or an
    /// envelope or release dimension: the funnel builder's rule), and to a daily-counts series
    /// without a split of its own whose events all carry it. Other charts keep their shape.
    public static func resolve(_ source: PanelSource, catalog: Catalog, fromMs: Int64, toMs: Int64,
                               controls: PanelControls = PanelControls()) throws -> (query: PanelQuery, note: String?) {
        switch source.kind {
        case .funnel(let id, let window):
            guard let funnel = catalog.funnels.first(where: { $0.id == id }) else { throw QueryError.unknownDefinition(id) }
            var query = FunnelQuery(funnel: funnel, fromMs: fromMs, toMs: toMs, windowMs: (controls.windowSeconds ?? window).map { $0 * 1000 },
                                    actor: controls.actor)
            var note: String?
            if let breakdown = controls.breakdown {
                do {
                    try FunnelSQLBuilder(catalog: catalog, dialect: .sqlite).checkBreakdown(breakdown, funnel: funnel)
                    query.breakdown = breakdown
                    // A page shows the top values and "other" (issue 32 §3); `sql panel` prints
                    // the SQL, which lists every value.
                    query.breakdownLimit = BreakdownLimit.values
                } catch {
                    note = "\(source.label) is not broken down by \(breakdown): step 1 of \(funnel.id) does not carry it."
                }
            }
            return (.funnel(query), note)
        case .kpi(let id, let property):
            guard let kpi = catalog.kpis.first(where: { $0.id == id }) else { throw QueryError.unknownDefinition(id) }
            return (.kpi(KPIQuery(kpi: PanelSource.kpi(kpi, property: property), fromMs: fromMs, toMs: toMs, actor: controls.actor)), nil)
        case .query(var query):
            var note: String?
            if let breakdown = controls.breakdown, query.kind == .dailyCounts, query.split == nil {
                do {
                    try EventQuerySQLBuilder(catalog: catalog, dialect: .sqlite).closedSet(breakdown, query.match)
                    query.split = breakdown
                } catch {
                    note = "\(source.label) is not broken down by \(breakdown): not every one of its events carries it."
                }
            }
            return (.events(query, fromMs: fromMs, toMs: toMs), note)
        }
    }

    /// The statements `dialect` runs for this query, each with its part (event queries have
    /// several; funnels and KPIs one). A funnel with a breakdown prints its breakdown query.
    public func statements(catalog: Catalog, dialect: SQLDialect) throws -> [(part: EventStatement.Part?, sql: String)] {
        switch self {
        case .funnel(let query): [(nil, try FunnelSQLBuilder(catalog: catalog, dialect: dialect).sql(query))]
        case .kpi(let query): [(nil, try KPISQLBuilder(catalog: catalog, dialect: dialect).sql(query))]
        case .events(let query, let fromMs, let toMs):
            try EventQuerySQLBuilder(catalog: catalog, dialect: dialect).statements(query, fromMs: fromMs, toMs: toMs).map { ($0.part, $0.sql) }
        }
    }
}

import ArgumentParser
import HandzAnalyticsCore
import HandzCatalog
import HandzQuery

extension SQLCommand {
    /// `handz-analytics sql panel DASHBOARD PANEL --dialect D [--from --to]`: the statements a
    /// dashboard panel runs (CH33 §7), each preceded by a comment naming its source and part.
    struct PanelSQL: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "panel",
            abstract: "The SQL of one dashboard panel (dashboards/): its funnel, KPIs or named event queries."
        )

        @OptionGroup var options: DashboardOptions

        @Argument(help: "The dashboard (file name without .yaml), e.g. launch_health.")
        var dashboard: String

        @Argument(help: "The panel id.")
        var panel: String

        @OptionGroup var range: RangeOptions

        @Option(help: "sqlite, postgres, duckdb, clickhouse, spark or bigquery.")
        var dialect: SQLDialect

        func run() throws {
            let (catalog, dashboards) = try options.load()
            guard let definition = dashboards.first(where: { $0.id == dashboard })?.panels.first(where: { $0.id == panel }) else {
                throw ValidationError("no panel \(panel) in dashboard \(dashboard)")
            }
            for source in definition.sources {
                for (part, sql) in try usage({ try statements(source, catalog: catalog) }) {
                    print("-- \(source.label)\(part.map { " (\($0.rawValue))" } ?? "")\n\(sql);\n")
                }
            }
        }

        func statements(_ source: PanelSource, catalog: Catalog) throws -> [(EventStatement.Part?, String)] {
            switch source.kind {
            case .funnel(let id, let window):
                guard let funnel = catalog.funnels.first(where: { $0.id == id }) else { throw QueryError.unknownDefinition(id) }
                let query = FunnelQuery(funnel: funnel, fromMs: range.fromMs, toMs: range.toMs, windowMs: window.map { $0 * 1000 }, actor: range.actor)
                return [(nil, try FunnelSQLBuilder(catalog: catalog, dialect: dialect).sql(query))]
            case .kpi(let id, let property):
                guard let kpi = catalog.kpis.first(where: { $0.id == id }) else { throw QueryError.unknownDefinition(id) }
                let query = KPIQuery(kpi: PanelSource.kpi(kpi, property: property), fromMs: range.fromMs, toMs: range.toMs, actor: range.actor)
                return [(nil, try KPISQLBuilder(catalog: catalog, dialect: dialect).sql(query))]
            case .query(let query):
                return try EventQuerySQLBuilder(catalog: catalog, dialect: dialect).statements(query, fromMs: range.fromMs, toMs: range.toMs).map { ($0.part, $0.sql) }
            }
        }
    }
}

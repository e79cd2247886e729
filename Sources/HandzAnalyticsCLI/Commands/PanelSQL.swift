import ArgumentParser
import HandzAnalyticsCore
import HandzCatalog
import HandzQuery

extension SQLCommand {
    /// `handz-analytics sql panel DASHBOARD PANEL --dialect D [--from --to]`: the statements a
    /// dashboard panel runs (CH33 §7), each preceded by a comment naming its source and part.
    struct PanelSQL: SQLTextCommand {
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

        func sqlText() throws -> String {
            let (catalog, dashboards) = try options.load()
            guard let definition = dashboards.first(where: { $0.id == dashboard })?.panels.first(where: { $0.id == panel }) else {
                throw ValidationError("no panel \(panel) in dashboard \(dashboard)")
            }
            var text = ""
            for source in definition.sources {
                let statements = try usage {
                    try PanelQuery.resolve(source, catalog: catalog, fromMs: range.fromMs, toMs: range.toMs, controls: PanelControls(actor: range.actor))
                        .query.statements(catalog: catalog, dialect: dialect)
                }
                for (part, sql) in statements {
                    text += "-- \(source.label)\(part.map { " (\($0.rawValue))" } ?? "")\n\(sql);\n\n"
                }
            }
            return text
        }
    }
}

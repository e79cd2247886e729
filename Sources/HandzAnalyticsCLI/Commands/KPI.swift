import ArgumentParser
import Foundation
import HandzAnalysis
import HandzColumnStore
import HandzAnalyticsCore
import HandzQuery

/// `NAME | --all` and the range: which KPIs to run.
struct KPIOptions: ParsableArguments {
    @Argument(help: "The KPI id (catalog/kpis.yaml), or none with --all.")
    var name: String?

    @Flag(help: "Every KPI of the catalog.")
    var all = false

    @OptionGroup var range: RangeOptions

    func validate() throws {
        guard (name == nil) == all else { throw ValidationError("give a KPI name or --all") }
    }

    func queries(_ catalog: Catalog) throws -> [KPIQuery] {
        let selected = all ? catalog.kpis : catalog.kpis.filter { $0.id == name }
        guard !selected.isEmpty else {
            throw ValidationError("no KPI \(name ?? ""); the catalog defines \(catalog.kpis.map(\.id).joined(separator: ", "))")
        }
        return selected.map { KPIQuery(kpi: $0, fromMs: range.fromMs, toMs: range.toMs, actor: range.actor) }
    }
}

/// `handz-analytics kpi NAME|--all --db PATH [--from DATE --to DATE] [--actor …] [--format …]`.
struct KPI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kpi",
        abstract: "Run KPIs of CH33 §5.2 on the embedded store: the value with its numerator and denominator."
    )

    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var kpis: KPIOptions

    @OptionGroup var store: AnalysisStoreOptions

    @Option(help: "auto: the column engine when the store's column copy is current and it answers the KPI, else SQLite; columns: insist on it; sqlite: never. Same numbers.")
    var via: AnalysisEngine = .auto

    func run() throws {
        let catalog = try catalogOptions.load()
        let queries = try kpis.queries(catalog)
        let analysis = try store.open(catalog)
        let columns = try via.panels(db: store.db, catalog: catalog)
        var reports: [KPIReport] = []
        for query in queries {
            reports.append(try usage {
                if let columns, case .kpi(let report)? = try columns.answer(.kpi(query)) { return report }
                return try analysis.kpi(query)
            })
        }
        print(KPIOutput.render(reports, as: store.format))
    }
}

extension SQLCommand {
    struct KPISQL: SQLTextCommand {
        static let configuration = CommandConfiguration(
            commandName: "kpi",
            abstract: "One KPI run as SQL: (numerator, denominator[, left_out]), (median_ms, actors) or (bucket, flows) rows."
        )

        @OptionGroup var catalogOptions: CatalogOptions
        @OptionGroup var kpis: KPIOptions
        @OptionGroup var target: SQLTargetOptions

        func sqlText() throws -> String {
            let catalog = try catalogOptions.load()
            let builder = KPISQLBuilder(catalog: catalog, dialect: target.dialect)
            var text = ""
            for var query in try kpis.queries(catalog) {
                query.source = target.source
                if kpis.all { text += "-- \(query.kpi.id)\n" }
                text += try usage { try builder.sql(query) } + (kpis.all ? ";\n" : "") + "\n"
            }
            return text
        }
    }
}

import ArgumentParser
import Foundation
import HandzAnalysis
import HandzColumnStore
import HandzCatalogReleases
import HandzQuery

/// `handz-analytics funnel F0 --db PATH [--from DATE --to DATE] [--window 7d] [--breakdown PROP]
/// [--actor install|user] [--format table|json|csv] [--via walk|sql]`.
struct Funnel: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run a funnel of CH33 §5.1 on the embedded store (semantics: HandzQuery documentation, \"Funnel semantics\").")

    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var funnel: FunnelOptions

    @OptionGroup var store: AnalysisStoreOptions

    @Option(help: "auto: the column store when it holds every stored event and answers this funnel, else walk; columns: the column store only; walk: read the funnel's events once from SQLite and walk the chains; sql: run the SQL `sql funnel --dialect sqlite` prints. Same numbers.")
    var via: Method = .auto

    enum Method: String, ExpressibleByArgument, CaseIterable { case auto, columns, walk, sql }

    func run() throws {
        let catalog = try catalogOptions.load()
        let query = try funnel.query(catalog)
        let (report, versions) = try usage {
            let analysis = try store.open(catalog)
            let report: FunnelReport
            switch via {
            case .auto, .columns:
                if ColumnFunnel.supports(query), let columns = try ColumnSealing.currentStore(db: store.db) {
                    return (try ColumnFunnel(store: columns, catalog: catalog).run(query),
                            try columns.catalogVersions(fromMs: query.fromMs, toMs: query.toMs &+ query.windowMs))
                } else if via == .columns {
                    throw CleanFailure(ColumnFunnel.supports(query)
                        ? "the column store of \(store.db) is not current: `handz-analytics layer --db \(store.db)` seals it"
                        : "the column engine does not answer per-user funnels yet (the user map is not in the column store): use --via walk")
                }
                report = try analysis.funnel(query)
            case .walk: report = try analysis.funnel(query)
            case .sql: report = try analysis.funnelBySQL(query)
            }
            return (report, try analysis.catalogVersions(fromMs: query.fromMs, toMs: query.toMs &+ query.windowMs))
        }
        // A range over several catalog versions: what some of them could not send is noted next
        // to the numbers (docs/catalog-releases.md, "Analysis across versions").
        let notes = try catalogOptions.availability(current: catalog, dataVersions: versions).notes(for: query.funnel, dataVersions: versions)
        print(FunnelOutput.render(report, as: store.format, notes: notes))
    }
}

import ArgumentParser
import Foundation
import HandzAnalysis
import HandzCatalogReleases
import HandzQuery

/// `handz-analytics funnel F0 --db PATH [--from DATE --to DATE] [--window 7d] [--breakdown PROP]
/// [--actor install|user] [--format table|json|csv] [--via walk|sql]`.
struct Funnel: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run a funnel of CH33 §5.1 on the embedded store (semantics: HandzQuery documentation, \"Funnel semantics\").")

    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var funnel: FunnelOptions

    @OptionGroup var store: AnalysisStoreOptions

    @Option(help: "walk: read the funnel's events once and walk the chains (fast); sql: run the SQL `sql funnel --dialect sqlite` prints. Same numbers.")
    var via: Method = .walk

    enum Method: String, ExpressibleByArgument, CaseIterable { case walk, sql }

    func run() throws {
        let catalog = try catalogOptions.load()
        let query = try funnel.query(catalog)
        let (report, versions) = try usage {
            let analysis = try store.open(catalog)
            let report = via == .walk ? try analysis.funnel(query) : try analysis.funnelBySQL(query)
            return (report, try analysis.catalogVersions(fromMs: query.fromMs, toMs: query.toMs &+ query.windowMs))
        }
        // A range over several catalog versions: what some of them could not send is noted next
        // to the numbers (docs/catalog-releases.md, "Analysis across versions").
        let notes = try catalogOptions.availability(current: catalog).notes(for: query.funnel, dataVersions: versions)
        print(FunnelOutput.render(report, as: store.format, notes: notes))
    }
}

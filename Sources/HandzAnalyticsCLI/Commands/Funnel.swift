import ArgumentParser
import Foundation
import HandzAnalysis
import HandzQuery

/// `handz-analytics funnel F0 --db PATH [--from DATE --to DATE] [--window 7d] [--breakdown PROP]
/// [--actor install|user] [--format table|json|csv]`.
struct Funnel: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run a funnel of CH33 §5.1 on the embedded store (semantics: README, \"Funnel semantics\").")

    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var funnel: FunnelOptions

    @OptionGroup var store: AnalysisStoreOptions

    func run() throws {
        let catalog = try catalogOptions.load()
        let query = try funnel.query(catalog)
        let report = try usage { try store.open(catalog).funnel(query) }
        print(FunnelOutput.render(report, as: store.format))
    }
}

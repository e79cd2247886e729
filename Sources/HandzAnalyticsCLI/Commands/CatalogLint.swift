import ArgumentParser
import Foundation
import HandzCatalog

/// `handz-analytics catalog lint`: prints every problem as `path:line: error|warning: message`
/// and fails when any is an error.
struct CatalogLint: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check the catalog: naming standard, PII keys, closed strings, ranges, spec coverage, funnels."
    )

    @OptionGroup var options: CatalogOptions

    @Flag(help: "Also print warnings.")
    var warnings = false

    func run() throws {
        let directory = try options.directory()
        let loaded = try CatalogLoader.load(directory: directory)
        let problems = (loaded.loadProblems + CatalogLinter.lint(loaded)).sorted()
        let shown = warnings ? problems : problems.filter { $0.severity == .error }
        for problem in shown { print(problem.formatted(catalogDirectory: directory)) }
        // CH33 §13: the §7 dashboards can be built from the catalog's events and properties.
        let dashboardDirectory = DashboardLoader.directory(besideCatalog: directory)
        var dashboardErrors = 0
        if FileManager.default.fileExists(atPath: dashboardDirectory) {
            let dashboards = DashboardLoader.load(directory: dashboardDirectory)
            let dashboardProblems = (dashboards.problems + DashboardLinter.lint(dashboards, catalog: loaded.catalog)).sorted()
            for problem in dashboardProblems where warnings || problem.severity == .error { print(problem.formatted(catalogDirectory: dashboardDirectory)) }
            dashboardErrors = dashboardProblems.filter { $0.severity == .error }.count
        }
        let errors = problems.filter { $0.severity == .error }.count + dashboardErrors
        let catalog = loaded.catalog
        let enabled = catalog.events.filter(\.isEnabled).count
        FileHandle.standardError.write(Data("catalog \(catalog.version): \(catalog.events.count) events (\(enabled) enabled, \(catalog.events.count - enabled) placeholders), \(catalog.properties.count) properties, \(catalog.funnels.count) funnels, dashboards checked; \(errors) error(s)\n".utf8))
        if errors > 0 { throw ExitCode.failure }
    }
}

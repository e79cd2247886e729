import ArgumentParser
import Foundation
import HandzCatalog
import HandzCatalogReleases

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
        // Releases (docs/catalog-releases.md): each is exactly what it was, and the working
        // catalog's version is bumped as its changes since the newest release require.
        let history = CatalogReleaseHistory.read(catalogDirectory: directory)
        let versionLine = Self.line(of: "catalog_version:", inFile: URL(fileURLWithPath: directory).appendingPathComponent("catalog.yaml").path)
        let versionLocation = CatalogLocation(file: "catalog.yaml", line: versionLine)
        let releaseProblems = history.integrityProblems() + CatalogReleaseHistory.fileNameProblems(catalogDirectory: directory)
            + history.bumpProblems(working: loaded.catalog, at: versionLocation) + history.retiredProblems(working: loaded.catalog, at: versionLocation)
        let problems = (loaded.loadProblems + CatalogLinter.lint(loaded) + releaseProblems).sorted()
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
        FileHandle.standardError.write(Data("catalog \(catalog.version) (\(history.releases.count) release(s) kept, newest \(history.newest?.version ?? "none")): \(catalog.events.count) events (\(enabled) enabled, \(catalog.events.count - enabled) placeholders), \(catalog.properties.count) properties, \(catalog.funnels.count) funnels, dashboards checked; \(errors) error(s)\n".utf8))
        if errors > 0 { throw ExitCode.failure }
    }

    /// The 1-based line of the first line starting with `prefix`, else 1.
    static func line(of prefix: String, inFile path: String) -> Int {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return (text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix(prefix) } ?? 0) + 1
    }
}

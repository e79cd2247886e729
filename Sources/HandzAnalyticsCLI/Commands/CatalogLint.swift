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
        let errors = problems.filter { $0.severity == .error }.count
        let catalog = loaded.catalog
        let enabled = catalog.events.filter(\.isEnabled).count
        FileHandle.standardError.write(Data("catalog \(catalog.version): \(catalog.events.count) events (\(enabled) enabled, \(catalog.events.count - enabled) placeholders), \(catalog.properties.count) properties, \(catalog.funnels.count) funnels; \(errors) error(s)\n".utf8))
        if errors > 0 { throw ExitCode.failure }
    }
}

import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzLint

/// `handz-analytics lint …`: the build-time analytics lint from the command line — the checks the
/// SwiftPM plugin runs in app builds (CH33 §1, §8.1, §13).
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Lint Swift analytics calls against the catalog and the PII rules; `lint status` compares code and catalog.",
        subcommands: [LintCheck.self, LintStatus.self],
        defaultSubcommand: LintCheck.self
    )
}

/// The inputs both lint subcommands take: paths, `--config`, `--catalog`.
struct LintInputOptions: ParsableArguments {
    @OptionGroup var catalogOptions: CatalogOptions

    @Option(help: "The lint configuration (default: the nearest .handz-analytics.yml above the first path).")
    var config: String?

    @Argument(help: "Swift files or directories (default: the current directory).")
    var paths: [String] = []

    /// Lints the paths with the configuration and catalog they resolve to.
    func lint() throws -> (catalog: Catalog, report: LintReport) {
        let paths = paths.isEmpty ? ["."] : paths
        var isDirectory: ObjCBool = false
        let first = URL(fileURLWithPath: paths[0])
        let searchFrom = FileManager.default.fileExists(atPath: first.path, isDirectory: &isDirectory) && !isDirectory.boolValue
            ? first.deletingLastPathComponent().path : first.path
        let setup: LintSetup
        do {
            setup = try LintSetup.resolve(
                configurationPath: config, searchFrom: searchFrom,
                catalogDirectory: catalogOptions.catalog, fallbackCatalog: { try catalogOptions.directory() }
            )
        } catch let error as LintConfigurationError {
            throw ValidationError(error.description)
        }
        let catalog: Catalog
        do {
            catalog = try CatalogLoader.loadChecked(directory: setup.catalogDirectory)
        } catch {
            throw CleanFailure("the catalog has problems:\n\(error)")
        }
        let run = LintRun(linter: SourceLinter(catalog: catalog, configuration: setup.configuration))
        do {
            return (catalog, try run.lint(files: try run.swiftFiles(in: paths)))
        } catch .missingPath(let path) {
            throw ValidationError("no such file or directory: \(path)")
        } catch {
            throw CleanFailure(error.description)
        }
    }
}

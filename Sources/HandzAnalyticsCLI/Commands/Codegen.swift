import ArgumentParser
import Foundation
import HandzCatalog

/// `handz-analytics codegen swift --out DIR`: the client's typed events and catalog snapshot;
/// `codegen privacy-manifest`: its PrivacyInfo.xcprivacy.
struct Codegen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate code from the catalog.",
        subcommands: [Swift.self, CodegenPrivacyManifest.self, BundledCatalogCommand.self]
    )

    /// `codegen bundled-catalog --out DIR`: the catalog as Swift, for `CatalogLoader.loadChecked`.
    struct BundledCatalogCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bundled-catalog",
            abstract: "Write the bundled catalog (every rule, funnel and KPI as Swift, with the text of the files it was read from) that commands use instead of the YAML when their catalog directory holds exactly those files."
        )

        @OptionGroup var options: CatalogOptions

        @Option(help: "Output directory (Sources/HandzCatalog/Generated).")
        var out: String

        func run() throws {
            let directory = try options.directory()
            // Read from the YAML, never from the bundled catalog being replaced.
            let loaded = try CatalogLoader.load(directory: directory)
            let problems = (loaded.loadProblems + CatalogLinter.lint(loaded)).filter { $0.severity == .error }
            guard problems.isEmpty else { throw CleanFailure("the catalog has problems:\n\(CatalogLoader.LoadError.problems(problems, directory: directory))") }
            let generator = BundledCatalogGenerator(catalog: loaded.catalog, files: BundledCatalogGenerator.comparedFiles(.directory(directory)))
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try generator.source().write(toFile: (out as NSString).appendingPathComponent(BundledCatalogGenerator.fileName), atomically: true, encoding: .utf8)
            FileHandle.standardError.write(Data("wrote the bundled catalog \(loaded.catalog.version) to \(out)\n".utf8))
        }
    }

    struct Swift: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the client's typed events (one struct per enabled event) and its catalog snapshot."
        )

        @OptionGroup var options: CatalogOptions

        @Option(help: "Output directory (the client's Generated/ folder, or with --for-app a folder of the app's target).")
        var out: String

        @Flag(help: "Generate into an app: the events import HandzAnalyticsClient, and the snapshot is AppAnalyticsCatalog, to pass as ClientConfiguration.catalog (the app then pins the catalog version it was built with).")
        var forApp = false

        func run() throws {
            let catalog = try options.load()
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            for file in SwiftEventsGenerator(catalog: catalog, target: forApp ? .app : .package).files() {
                try file.contents.write(toFile: (out as NSString).appendingPathComponent(file.name), atomically: true, encoding: .utf8)
            }
            FileHandle.standardError.write(Data("wrote the typed events of catalog \(catalog.version) to \(out)\n".utf8))
        }
    }
}

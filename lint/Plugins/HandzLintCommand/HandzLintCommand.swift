import Foundation
import PackagePlugin

/// `swift package handz-lint [--target NAME …] [--status [--strict]] [--format xcode|json|sarif]`:
/// the Handz analytics lint on demand, over the package's non-test targets (or the named ones),
/// with `.handz-analytics.yml` searched from the package directory. `--status` lists catalogued
/// events the code never emits and placeholders it does emit (like `ampli status`).
@main
struct HandzLintCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let targets = names.isEmpty ? context.package.targets : try context.package.targets(named: names)
        let modules = targets.compactMap(\.sourceModule).filter { !names.isEmpty || $0.kind != .test }
        let sources = modules.flatMap { $0.sourceFiles(withSuffix: "swift").map(\.url.path) }
        guard !sources.isEmpty else {
            Diagnostics.warning("no Swift sources to lint")
            return
        }
        var forwarded = ["--search-from", context.package.directoryURL.path]
        for flag in ["status", "strict"] where extractor.extractFlag(named: flag) > 0 { forwarded.append("--\(flag)") }
        for option in ["format", "catalog", "config"] {
            for value in extractor.extractOption(named: option) { forwarded += ["--\(option)", value] }
        }
        let unknown = extractor.unextractedOptionsOrFlags
        guard unknown.isEmpty else {
            Diagnostics.error("unknown options \(unknown.joined(separator: " ")); use --target, --status, --strict, --format, --catalog, --config")
            return
        }
        let process = Process()
        process.executableURL = try context.tool(named: "handz-lint").url
        process.arguments = forwarded + sources
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            Diagnostics.error("handz-lint reported problems (exit status \(process.terminationStatus)) in \(modules.map(\.name).joined(separator: ", "))")
        }
    }
}

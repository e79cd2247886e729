import Foundation
import PackagePlugin

/// The Handz build-time lint as a SwiftPM build tool plugin (CH33 §8.1 "build-time lint rejects
/// suspicious keys", §13 "No PII leakage confirmed by automated lint").
///
/// An app target adds `plugins: [.plugin(name: "HandzLintPlugin", package: "HandzAnalytics")]`.
/// Each build then runs `handz-lint` on the target's Swift files; its diagnostics appear at their
/// lines, and an error fails the build. The command's inputs are the sources, the nearest
/// `.handz-analytics.yml` above the target and the catalog's YAML files, so it runs again when
/// any of them changes. Its output is a comment-only Swift file in the plugin's work directory,
/// written only when the lint passes — so a failing lint runs again on the next build. The
/// per-file results cache (`lint-cache.json`) lives in that work directory too.
@main
struct HandzLintPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let module = target.sourceModule else { return [] }
        let sources = module.sourceFiles(withSuffix: "swift").map(\.url)
        return try LintCommand(
            tool: context.tool(named: "handz-lint").url, targetName: target.name, sources: sources,
            searchFrom: target.directoryURL, workDirectory: context.pluginWorkDirectoryURL
        ).commands()
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

/// The same plugin on an Xcode app target (Build Phases → Run Build Tool Plug-ins). Xcode targets
/// have no directory of their own, so `.handz-analytics.yml` is searched from the project's.
extension HandzLintPlugin: XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        let sources = target.inputFiles.filter { $0.type == .source && $0.url.pathExtension == "swift" }.map(\.url)
        return try LintCommand(
            tool: context.tool(named: "handz-lint").url, targetName: target.displayName, sources: sources,
            searchFrom: context.xcodeProject.directoryURL, workDirectory: context.pluginWorkDirectoryURL
        ).commands()
    }
}
#endif

/// The one build command: `handz-lint --config … --catalog … --stamp … FILES`.
struct LintCommand {
    let tool: URL
    let targetName: String
    let sources: [URL]
    let searchFrom: URL
    let workDirectory: URL

    static let configurationFileName = ".handz-analytics.yml"

    func commands() throws -> [Command] {
        guard !sources.isEmpty else { return [] }
        let configuration = findConfiguration()
        let catalog = catalogDirectory(configuration: configuration)
        let stamp = workDirectory.appendingPathComponent("HandzLintPassed.swift")
        let cache = workDirectory.appendingPathComponent("lint-cache.json")
        var arguments = ["--search-from", searchFrom.path, "--catalog", catalog.path, "--stamp", stamp.path, "--cache", cache.path]
        if let configuration { arguments += ["--config", configuration.path] }
        return [.buildCommand(
            displayName: "Handz analytics lint for \(targetName)",
            executable: tool,
            arguments: arguments + sources.map(\.path),
            inputFiles: sources + [configuration].compactMap { $0 } + catalogFiles(catalog),
            outputFiles: [stamp]
        )]
    }

    /// The nearest `.handz-analytics.yml` in `searchFrom` or a parent directory.
    func findConfiguration() -> URL? {
        var directory = searchFrom.standardizedFileURL
        while true {
            let candidate = directory.appendingPathComponent(Self.configurationFileName)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { return nil }
            directory = parent
        }
    }

    /// The configuration's top-level `catalog:` (relative to the file), else the catalog shipped
    /// with this package. Only that one line is read here, to list the catalog files as inputs;
    /// `handz-lint` reads the whole configuration.
    func catalogDirectory(configuration: URL?) -> URL {
        if let configuration, let text = try? String(contentsOf: configuration, encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("catalog:") {
                var value = line.dropFirst("catalog:".count)
                if let comment = value.range(of: " #") { value = value[..<comment.lowerBound] }
                let path = value.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                if path.hasPrefix("/") { return URL(fileURLWithPath: path) }
                return configuration.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
            }
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("catalog")
    }

    /// The catalog's YAML files (`catalog/*.yaml`, `catalog/events/*.yaml`).
    func catalogFiles(_ catalog: URL) -> [URL] {
        [catalog, catalog.appendingPathComponent("events")].flatMap { directory in
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .filter { $0.hasSuffix(".yaml") }.sorted().map { directory.appendingPathComponent($0) }
        }
    }
}

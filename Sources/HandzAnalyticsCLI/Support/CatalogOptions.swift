import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzCatalogReleases

/// `--catalog DIR`, shared by every command that needs the catalog.
struct CatalogOptions: ParsableArguments {
    @Option(name: .long, help: "The catalog directory (default: the repository's catalog/, found from the current directory).")
    var catalog: String?

    /// The catalog directory: the option, else the nearest `catalog/` holding a `catalog.yaml`
    /// walking up from the current directory, else the one next to this source tree.
    func directory() throws -> String {
        if let catalog { return catalog }
        var url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<32 {
            let candidate = url.appendingPathComponent("catalog")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("catalog.yaml").path) {
                return candidate.path
            }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { break }
            url = parent
        }
        let sourceTree = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("catalog")
        if FileManager.default.fileExists(atPath: sourceTree.appendingPathComponent("catalog.yaml").path) {
            return sourceTree.path
        }
        throw ValidationError("no catalog/ found; pass --catalog DIR")
    }

    /// Loads and checks the catalog; a broken catalog stops the command with its problems.
    func load() throws -> Catalog {
        let directory = try directory()
        do {
            return try CatalogLoader.loadChecked(directory: directory)
        } catch let error as CatalogLoader.LoadError {
            throw CleanFailure("the catalog has problems:\n\(error)")
        }
    }
}

extension CatalogOptions {
    /// What each kept catalog version allows: the releases in `catalog/releases/` and `current`.
    /// When the data holds no version but the current one, no note can be due (every event the
    /// current catalog names is in its own version), so the releases are not read: loading each
    /// release's YAML was a quarter of a `funnel` process on the column store.
    func availability(current: Catalog, dataVersions: [String]) throws -> CatalogAvailability {
        if dataVersions.allSatisfy({ $0 == current.version }) { return CatalogAvailability([current]) }
        let history = CatalogReleaseHistory.read(catalogDirectory: try directory())
        return CatalogAvailability(history.releases.map { $0.load(label: $0.version).catalog } + [current])
    }
}

/// A failure whose message is printed as is, exiting with status 1.
struct CleanFailure: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

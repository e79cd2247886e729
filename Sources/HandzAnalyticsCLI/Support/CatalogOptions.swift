import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzCatalogReleases

/// `--catalog DIR`, shared by every command that needs the catalog.
struct CatalogOptions: ParsableArguments {
    @Option(name: .long, help: "The catalog directory (default: $HANDZ_CATALOG, else the nearest catalog/ from the current directory up, else catalog/ beside the binary or in ../share/handz-analytics/).")
    var catalog: String?

    /// The environment variable naming the catalog directory for every command.
    static let environmentVariable = "HANDZ_CATALOG"

    /// The catalog directory, the first of (issue 37 §3):
    /// 1. `--catalog DIR`;
    /// 2. `HANDZ_CATALOG`;
    /// 3. the nearest `catalog/` holding a `catalog.yaml`, walking up from the current directory
    ///    (a clone of the repository);
    /// 4. beside the binary: `BIN_DIR/catalog`, then `BIN_DIR/../share/handz-analytics/catalog`
    ///    (an installed binary, the deployment guide's layout);
    /// 5. the source tree this binary was built from.
    ///
    /// `dashboards/` is found beside whichever catalog this picks.
    func directory(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let catalog { return catalog }
        if let named = environment[Self.environmentVariable], !named.isEmpty { return named }
        var url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<32 {
            let candidate = url.appendingPathComponent("catalog")
            if Self.holdsCatalog(candidate) { return candidate.path }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { break }
            url = parent
        }
        if let binary = Self.executableDirectory {
            for candidate in [binary.appendingPathComponent("catalog"), binary.appendingPathComponent("../share/handz-analytics/catalog").standardizedFileURL]
            where Self.holdsCatalog(candidate) {
                return candidate.path
            }
        }
        let sourceTree = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("catalog")
        if Self.holdsCatalog(sourceTree) { return sourceTree.path }
        throw ValidationError("no catalog/ found; pass --catalog DIR or set HANDZ_CATALOG")
    }

    private static func holdsCatalog(_ directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("catalog.yaml").path)
    }

    /// The directory of the running binary, symbolic links resolved (so a link in /usr/local/bin
    /// finds the catalog installed beside the real file).
    static var executableDirectory: URL? {
        #if os(Linux)
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
        #endif
        return executable.deletingLastPathComponent()
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

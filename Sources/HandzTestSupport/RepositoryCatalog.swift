import Foundation
import HandzAnalyticsCore
import HandzCatalog

/// The repository's own `catalog/`, loaded once per test process. Test helpers live in this small
/// module so every test target (core, catalog, CLI, server, client) shares them.
public enum RepositoryCatalog {
    /// The repository root, found from this source file's location.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static var directory: String { root.appendingPathComponent("catalog").path }

    /// The shipped catalog, linted: a broken catalog fails every test that uses it.
    public static let catalog: Catalog = {
        do {
            return try CatalogLoader.loadChecked(directory: directory)
        } catch {
            fatalError("the repository catalog does not load: \(error)")
        }
    }()

    public static let compiled = CompiledCatalog(catalog)
}

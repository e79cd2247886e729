import HandzAnalyticsCore
import HandzCatalog

/// What a server validates with: the working catalog (linted) and every kept release (each
/// checked to be exactly what it was released as). Anything wrong stops the server from
/// starting, and a reload from taking effect, as a broken catalog always did.
public enum ServedCatalogs {
    public static func load(directory: String) throws -> (current: Catalog, releases: [Catalog]) {
        let current = try CatalogLoader.loadChecked(directory: directory)
        let history = CatalogReleaseHistory.read(catalogDirectory: directory)
        let problems = history.integrityProblems()
        guard problems.isEmpty else { throw CatalogLoader.LoadError.problems(problems, directory: directory) }
        return (current, history.releases.map { $0.load(label: $0.version).catalog })
    }
}

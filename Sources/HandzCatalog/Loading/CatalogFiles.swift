import Foundation

/// Where the loader reads a catalog's YAML files from: the catalog directory, or the files a
/// released snapshot keeps (`catalog/releases/<version>.json`). One loader for both, so a
/// release is read exactly as the catalog it was made from.
public struct CatalogFiles: Sendable {
    enum Source: Sendable {
        case directory(URL)
        case memory([String: String])
    }
    let source: Source

    public static func directory(_ path: String) -> CatalogFiles { CatalogFiles(source: .directory(URL(fileURLWithPath: path))) }
    public static func memory(_ files: [String: String]) -> CatalogFiles { CatalogFiles(source: .memory(files)) }

    /// The text of `path` (relative, e.g. `events/01_app.yaml`), or nil when absent or unreadable.
    func text(_ path: String) -> String? {
        switch source {
        case .directory(let root): try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        case .memory(let files): files[path]
        }
    }

    /// The `.yaml` files directly inside `folder`, as relative paths, sorted.
    func yamlFiles(in folder: String) -> [String] {
        switch source {
        case .directory(let root):
            ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? [])
                .filter { $0.hasSuffix(".yaml") }.sorted().map { folder + "/" + $0 }
        case .memory(let files):
            files.keys.filter { $0.hasPrefix(folder + "/") && $0.hasSuffix(".yaml") && !$0.dropFirst(folder.count + 1).contains("/") }.sorted()
        }
    }

    /// The files that make up the catalog's rules — the ones ``CatalogLoader`` reads, not the
    /// QA rules or the releases — by relative path: what a release keeps.
    public func ruleFiles() -> [String: String] {
        var files: [String: String] = [:]
        for path in CatalogLoader.topLevelFiles + yamlFiles(in: "events") {
            if let text = text(path) { files[path] = text }
        }
        return files
    }
}

import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzSigning

/// One released catalog: `catalog/releases/<version>.json`, written by
/// `handz-analytics catalog release` and never edited (docs/catalog-releases.md).
///
/// A release keeps the catalog's rule files verbatim (`catalog.yaml`, `properties.yaml`,
/// `events/*.yaml`, …, not the QA rules) rather than a second serialization of them: the one
/// ``CatalogLoader`` reads a release exactly as it read the catalog it was made from, so a
/// release can never mean something else than what shipped. About 80 KB a release.
///
/// `sha256` is the digest of the files and of the previous release's digest: an edit to a
/// release changes its digest (caught by `catalog lint`), and re-recording the digest breaks
/// the next release's `previous` link.
public struct CatalogRelease: Sendable, Equatable {
    /// The tool that writes release files, recorded in each (generated files say so).
    public static let generator = "handz-analytics catalog release"

    public struct Reference: Sendable, Equatable {
        public var version: String
        public var sha256: String

        public init(version: String, sha256: String) {
            self.version = version
            self.sha256 = sha256
        }
    }

    /// The `catalog_version` its `catalog.yaml` declares.
    public var version: String
    public var previous: Reference?
    /// Relative path → text, as ``CatalogFiles/ruleFiles()`` reads them.
    public var files: [String: String]
    /// The digest recorded in the file (``digest`` recomputes it).
    public var sha256: String

    /// A new release of `files`; its digest is computed.
    public init(version: String, previous: Reference?, files: [String: String]) {
        self.version = version
        self.previous = previous
        self.files = files
        sha256 = ""
        sha256 = digest
    }

    /// SHA-256 over a fixed framing of the previous digest and every file (path, byte count,
    /// text), in path order.
    public var digest: String {
        var hasher = SHA256Stream()
        hasher.update(Array("handz-catalog-release-v1\nprevious \(previous?.sha256 ?? "none")\n".utf8))
        for path in files.keys.sorted() {
            let text = Array(files[path]!.utf8)
            hasher.update(Array("\(path)\n\(text.count)\n".utf8))
            hasher.update(text)
            hasher.update([UInt8(ascii: "\n")])
        }
        return hasher.hex()
    }

    public var reference: Reference { Reference(version: version, sha256: sha256) }

    /// The release's catalog, read by the catalog loader (`label` names it in problems).
    public func load(label: String) -> LoadedCatalog {
        CatalogLoader.load(.memory(files), label: label)
    }

    // MARK: The file

    public enum ReadError: Error, CustomStringConvertible {
        case unreadable(String)
        case malformed(String, reason: String)

        public var description: String {
            switch self {
            case .unreadable(let path): "\(path): cannot be read"
            case .malformed(let path, let reason): "\(path): not a catalog release (\(reason))"
            }
        }
    }

    /// Reads a release file.
    public static func read(path: String) throws -> CatalogRelease {
        guard let data = FileManager.default.contents(atPath: path) else { throw ReadError.unreadable(path) }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ReadError.malformed(path, reason: "not a JSON object")
        }
        guard let version = object["catalog_version"] as? String, let sha256 = object["sha256"] as? String,
              let files = object["files"] as? [String: String] else {
            throw ReadError.malformed(path, reason: "catalog_version, sha256 and files are required")
        }
        var previous: Reference?
        if let link = object["previous"] as? [String: String] {
            guard let version = link["catalog_version"], let digest = link["sha256"] else {
                throw ReadError.malformed(path, reason: "previous needs catalog_version and sha256")
            }
            previous = Reference(version: version, sha256: digest)
        }
        var release = CatalogRelease(version: version, previous: previous, files: files)
        release.sha256 = sha256
        return release
    }

    /// The file's bytes: sorted keys, one key per line, so a release reads and diffs plainly.
    public func json() -> Data {
        var object: [String: Any] = [
            "generated_by": "\(Self.generator) — do not edit; release a new version instead (docs/catalog-releases.md)",
            "catalog_version": version,
            "sha256": sha256,
            "files": files,
        ]
        if let previous { object["previous"] = ["catalog_version": previous.version, "sha256": previous.sha256] }
        // Only strings, dictionaries and a fixed key set: serialization cannot fail.
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return data + Data("\n".utf8)
    }
}

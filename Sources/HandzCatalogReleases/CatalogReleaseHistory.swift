import Foundation
import HandzAnalyticsCore
import HandzCatalog

/// Every released catalog in `catalog/releases/`, oldest first, with the checks `catalog lint`
/// runs on them: each release is exactly what it was (digest, name, chain), and the working
/// catalog's version is bumped as its changes since the newest release require.
public struct CatalogReleaseHistory: Sendable {
    /// The folder inside the catalog directory.
    public static let folder = "releases"

    public var releases: [CatalogRelease]
    /// Files that could not be read as releases.
    public var readProblems: [CatalogProblem]

    public init(releases: [CatalogRelease], readProblems: [CatalogProblem] = []) {
        self.releases = releases.sorted { (CatalogVersion($0.version) ?? CatalogVersion(major: -1, minor: 0, patch: 0)) < (CatalogVersion($1.version) ?? CatalogVersion(major: -1, minor: 0, patch: 0)) }
        self.readProblems = readProblems
    }

    /// Reads `<catalogDirectory>/releases/*.json`; no folder is an empty history.
    public static func read(catalogDirectory: String) -> CatalogReleaseHistory {
        let folder = URL(fileURLWithPath: catalogDirectory).appendingPathComponent(Self.folder)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        var releases: [CatalogRelease] = []
        var problems: [CatalogProblem] = []
        for name in names {
            do {
                releases.append(try CatalogRelease.read(path: folder.appendingPathComponent(name).path))
            } catch {
                problems.append(CatalogProblem(CatalogLocation(file: "\(Self.folder)/\(name)", line: 1), "\(error)"))
            }
        }
        return CatalogReleaseHistory(releases: releases, readProblems: problems)
    }

    public var newest: CatalogRelease? { releases.last }

    public func release(_ version: String) -> CatalogRelease? { releases.first { $0.version == version } }

    static func location(_ release: CatalogRelease) -> CatalogLocation {
        CatalogLocation(file: "\(folder)/\(release.version).json", line: 1)
    }

    /// Each release is what it was when released: its digest matches its files, its catalog
    /// loads without problems and declares its own version, and each names the one before it.
    /// (The file name is checked by ``fileNameProblems(catalogDirectory:)``.)
    public func integrityProblems() -> [CatalogProblem] {
        var problems = readProblems
        for (index, release) in releases.enumerated() {
            let here = Self.location(release)
            guard CatalogVersion(release.version) != nil else {
                problems.append(CatalogProblem(here, "catalog_version must be MAJOR.MINOR.PATCH"))
                continue
            }
            if release.digest != release.sha256 {
                problems.append(CatalogProblem(here, "release \(release.version) does not match its recorded sha256: a release is never edited — change catalog/ and release a new version"))
            }
            let loaded = release.load(label: here.file)
            for problem in loaded.loadProblems where problem.severity == .error {
                problems.append(CatalogProblem(here, "release \(release.version) does not load: \(problem.description)"))
            }
            if loaded.catalog.version != release.version {
                problems.append(CatalogProblem(here, "release \(release.version) holds a catalog.yaml declaring \(loaded.catalog.version)"))
            }
            let expected = index > 0 ? releases[index - 1].reference : nil
            if release.previous != expected {
                problems.append(CatalogProblem(here, expected.map { "release \(release.version) must name the release before it (\($0.version), its sha256) as previous" }
                    ?? "the oldest release \(release.version) names a previous release that is not kept"))
            }
        }
        return problems
    }

    /// Release files are named `<catalog_version>.json`.
    public static func fileNameProblems(catalogDirectory: String) -> [CatalogProblem] {
        let folder = URL(fileURLWithPath: catalogDirectory).appendingPathComponent(Self.folder)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".json") }
        return names.sorted().compactMap { name in
            guard let release = try? CatalogRelease.read(path: folder.appendingPathComponent(name).path), release.version + ".json" != name else { return nil }
            return CatalogProblem(CatalogLocation(file: "\(Self.folder)/\(name)", line: 1), "a release file is named after its catalog_version (\(release.version).json)")
        }
    }

    /// The working catalog against the newest release: not older, unchanged when the version is
    /// the same, and otherwise bumped at least as much as the heaviest change requires (major for
    /// breaking, minor for additions, patch for revisions), naming the change that decides it.
    public func bumpProblems(working: Catalog, at location: CatalogLocation) -> [CatalogProblem] {
        guard let newest, let released = CatalogVersion(newest.version), let current = CatalogVersion(working.version) else { return [] }
        let changes = CatalogDiff.changes(from: newest.load(label: newest.version).catalog, to: working)
        let required = CatalogDiff.required(changes)
        let deciding = changes.first { $0.changeClass == required }
        if current < released {
            return [CatalogProblem(location, "catalog_version \(current) is older than the newest release \(released)")]
        }
        if current == released {
            guard let required, let deciding else { return [] }
            return [CatalogProblem(location, "catalog/ changed since release \(released) but catalog_version was not bumped: \(required.rawValue) change (\(deciding.subject): \(deciding.change)) needs at least a \(required.requiredBump.rawValue) bump — see `catalog diff \(released) catalog`")]
        }
        guard let required, let deciding, let bump = current.bump(from: released), bump < required.requiredBump else { return [] }
        return [CatalogProblem(location, "catalog_version \(current) is a \(bump.rawValue) bump from \(released), but a \(required.rawValue) change (\(deciding.subject): \(deciding.change)) needs a \(required.requiredBump.rawValue) bump")]
    }

    /// Retired versions that were never released are probably typos.
    public func retiredProblems(working: Catalog, at location: CatalogLocation) -> [CatalogProblem] {
        working.retiredVersions.filter { release($0) == nil }.map {
            CatalogProblem(location, "retired version \($0) is not a release in \(Self.folder)/", severity: .warning)
        }
    }
}

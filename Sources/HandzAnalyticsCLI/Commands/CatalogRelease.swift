import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzCatalogReleases

/// `handz-analytics catalog release`: writes `catalog/releases/<catalog_version>.json`, the
/// snapshot servers keep validating that version's apps against (docs/catalog-releases.md).
/// Refuses a catalog with lint errors, a version already released, and a bump smaller than the
/// changes since the newest release require.
struct CatalogReleaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Release the working catalog: write catalog/releases/<catalog_version>.json (never edited afterwards)."
    )

    @OptionGroup var options: CatalogOptions

    func run() throws {
        let directory = try options.directory()
        let catalog = try options.load()
        let history = CatalogReleaseHistory.read(catalogDirectory: directory)
        let problems = history.integrityProblems() + history.bumpProblems(working: catalog, at: CatalogLocation(file: "catalog.yaml", line: 1))
        guard problems.isEmpty else {
            throw CleanFailure(problems.map { $0.formatted(catalogDirectory: directory) }.joined(separator: "\n"))
        }
        guard history.release(catalog.version) == nil else {
            throw CleanFailure("catalog \(catalog.version) is already released; bump catalog_version in catalog/catalog.yaml first")
        }
        let release = CatalogRelease(version: catalog.version, previous: history.newest?.reference, files: CatalogFiles.directory(directory).ruleFiles())
        let folder = URL(fileURLWithPath: directory).appendingPathComponent(CatalogReleaseHistory.folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("\(catalog.version).json").path
        try release.json().write(to: URL(fileURLWithPath: path), options: .withoutOverwriting)
        print("released catalog \(catalog.version): \(path) (sha256 \(release.sha256))")
    }
}

/// `handz-analytics catalog diff OLD NEW`: every change between two catalogs, classified as
/// addition, revision or breaking, and the version bump it needs. OLD and NEW are a released
/// version (`1.2.0`), a catalog directory, or a release file.
struct CatalogDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Classify every change between two catalogs (released versions, directories or release files) and the bump it needs."
    )

    @OptionGroup var options: CatalogOptions

    @Argument(help: "The older catalog: a released version (1.2.0), a catalog directory, or a release file.")
    var old: String

    @Argument(help: "The newer catalog (same forms; `catalog` for the working catalog/ directory).")
    var new: String

    @Option(help: "text or json.")
    var format: DiffFormat = .text

    enum DiffFormat: String, ExpressibleByArgument { case text, json }

    func run() throws {
        let directory = try options.directory()
        let before = try resolve(old, directory: directory)
        let after = try resolve(new, directory: directory)
        let changes = CatalogDiff.changes(from: before, to: after)
        let required = CatalogDiff.required(changes)
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            let report = DiffReport(old: before.version, new: after.version, requiredBump: required?.requiredBump.rawValue, changes: changes)
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        case .text:
            let width = CatalogChangeClass.allCases.map(\.rawValue.count).max() ?? 8
            for change in changes {
                print(change.changeClass.rawValue.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(change.subject): \(change.change)")
            }
            print("\(before.version) → \(after.version): \(changes.count) change(s); " + (required.map { "needs a \($0.requiredBump.rawValue) bump (\($0.rawValue))" } ?? "no bump needed"))
        }
    }

    struct DiffReport: Encodable {
        let old: String
        let new: String
        let requiredBump: String?
        let changes: [CatalogChange]

        enum CodingKeys: String, CodingKey {
            case old, new, changes
            case requiredBump = "required_bump"
        }
    }

    /// A released version from the history, a release file, or a catalog directory (`catalog`
    /// means the working one).
    func resolve(_ argument: String, directory: String) throws -> Catalog {
        if argument == "catalog" { return try CatalogLoader.load(directory: directory).catalog }
        if CatalogVersion(argument) != nil {
            guard let release = CatalogReleaseHistory.read(catalogDirectory: directory).release(argument) else {
                throw CleanFailure("no release \(argument) in \(directory)/\(CatalogReleaseHistory.folder)/")
            }
            return try checked(release.load(label: argument), argument)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
            throw CleanFailure("\(argument): not a released version, a catalog directory or a release file")
        }
        if isDirectory.boolValue { return try checked(try CatalogLoader.load(directory: argument), argument) }
        do {
            return try checked(try CatalogRelease.read(path: argument).load(label: argument), argument)
        } catch let error as CatalogRelease.ReadError {
            throw CleanFailure("\(error)")
        }
    }

    func checked(_ loaded: LoadedCatalog, _ argument: String) throws -> Catalog {
        let errors = loaded.loadProblems.filter { $0.severity == .error }
        guard errors.isEmpty else {
            throw CleanFailure("\(argument) does not load:\n" + errors.map(\.description).joined(separator: "\n"))
        }
        return loaded.catalog
    }
}

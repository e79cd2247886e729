import ArgumentParser
import Foundation
import HandzCatalog

/// Loads the catalog checked (a catalog with problems — a property without a data type among them —
/// generates nothing) and returns it with its Apple classification.
private func checkedPrivacy(_ options: CatalogOptions) throws -> LoadedCatalog {
    let directory = try options.directory()
    _ = try CatalogLoader.loadChecked(directory: directory)
    return try CatalogLoader.load(directory: directory)
}

/// `handz-analytics codegen privacy-manifest`: the client's PrivacyInfo.xcprivacy (issue 23).
struct CodegenPrivacyManifest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "privacy-manifest",
        abstract: "Write the client's Apple privacy manifest (PrivacyInfo.xcprivacy) from the catalog's collected_data."
    )

    @OptionGroup var options: CatalogOptions

    @Option(help: "Output file.")
    var out = "Sources/HandzAnalyticsClient/PrivacyInfo.xcprivacy"

    func run() throws {
        let loaded = try checkedPrivacy(options)
        try PrivacyManifestWriter.manifest(loaded.collectedData).write(toFile: out, atomically: true, encoding: .utf8)
        FileHandle.standardError.write(Data("wrote the privacy manifest of catalog \(loaded.catalog.version) to \(out)\n".utf8))
    }
}

/// `handz-analytics catalog privacy-report`: the App Store Connect answers (issue 23).
struct CatalogPrivacyReport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "privacy-report",
        abstract: "Write the App Store Connect App Privacy answers (Markdown) from the catalog's collected_data."
    )

    @OptionGroup var options: CatalogOptions

    @Option(help: "Output file, or - for standard output.")
    var out = "docs/app-store-privacy.md"

    func run() throws {
        let loaded = try checkedPrivacy(options)
        let text = PrivacyReportWriter.report(loaded.collectedData, catalogVersion: loaded.catalog.version)
        if out == "-" {
            print(text, terminator: "")
        } else {
            try text.write(toFile: out, atomically: true, encoding: .utf8)
            FileHandle.standardError.write(Data("wrote the App Store privacy answers of catalog \(loaded.catalog.version) to \(out)\n".utf8))
        }
    }
}

import ArgumentParser
import Foundation
import HandzCatalog

/// Loads the catalog checked (a catalog with problems — a property without a data type among them —
/// generates nothing) and writes what `render` makes of its Apple classification to `out` (`-`:
/// standard output), saying so on standard error.
private func writePrivacyOutput(_ options: CatalogOptions, to out: String, what: String,
                                _ render: (LoadedCatalog) -> String) throws {
    let directory = try options.directory()
    _ = try CatalogLoader.loadChecked(directory: directory)
    let loaded = try CatalogLoader.load(directory: directory)
    let text = render(loaded)
    if out == "-" {
        print(text, terminator: "")
    } else {
        try text.write(toFile: out, atomically: true, encoding: .utf8)
        FileHandle.standardError.write(Data("wrote \(what) of catalog \(loaded.catalog.version) to \(out)\n".utf8))
    }
}

/// `handz-analytics codegen privacy-manifest`: the client's PrivacyInfo.xcprivacy (issue 23).
struct CodegenPrivacyManifest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "privacy-manifest",
        abstract: "Write the client's Apple privacy manifest (PrivacyInfo.xcprivacy) from the catalog's collected_data."
    )

    @OptionGroup var options: CatalogOptions

    @Option(help: "Output file, or - for standard output.")
    var out = "Sources/HandzAnalyticsClient/PrivacyInfo.xcprivacy"

    func run() throws {
        try writePrivacyOutput(options, to: out, what: "the privacy manifest") { PrivacyManifestWriter.manifest($0.collectedData) }
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
        try writePrivacyOutput(options, to: out, what: "the App Store privacy answers") {
            PrivacyReportWriter.report($0.collectedData, catalogVersion: $0.catalog.version)
        }
    }
}

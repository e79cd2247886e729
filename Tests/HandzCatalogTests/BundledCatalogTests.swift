import Foundation
import HandzAnalyticsCore
@testable import HandzCatalog
import HandzTestSupport
import Testing

/// The catalog compiled into the binary stands in for the repository's catalog directory only,
/// and is that directory's catalog exactly (issue 33: no YAML read at query time).
@Suite struct BundledCatalogTests {
    static let directory = RepositoryCatalog.directory

    @Test("the bundled catalog is what the repository's YAML reads, from the same files, and its source is what codegen writes today")
    func upToDate() throws {
        let loaded = try CatalogLoader.load(directory: Self.directory)
        #expect(BundledCatalog.catalog == loaded.catalog, "the literal leaves out or changes a field of the catalog the YAML gives")
        let files = BundledCatalogGenerator.comparedFiles(.directory(Self.directory))
        #expect(BundledCatalog.files == files)
        #expect(files.keys.contains("funnels.yaml") && files.keys.contains { $0.hasPrefix("events/") } && files.keys.contains { $0.hasPrefix("qa/") })
        let path = RepositoryCatalog.root.appendingPathComponent("Sources/HandzCatalog/Generated/\(BundledCatalogGenerator.fileName)")
        let onDisk = try String(contentsOf: path, encoding: .utf8)
        #expect(onDisk == BundledCatalogGenerator(catalog: loaded.catalog, files: files).source(),
                "out of date: swift run handz-analytics codegen bundled-catalog --out Sources/HandzCatalog/Generated")
    }

    @Test("a copy of the catalog directory gives the bundled catalog; a copy with one edited file, or one file more, is read from its YAML")
    func standsInOnlyForItsFiles() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("bundled-catalog-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let copy = work.appendingPathComponent("catalog")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: Self.directory), to: copy)
        #expect(try CatalogLoader.loadChecked(directory: copy.path) == BundledCatalog.catalog)

        // F0's window, 7d in the repository, edited to 6d: the edit must show.
        let funnels = copy.appendingPathComponent("funnels.yaml")
        let text = try String(contentsOf: funnels, encoding: .utf8)
        let edited = text.replacingOccurrences(of: "spec: \"CH33 §5.1 F0\"\n    window: 7d", with: "spec: \"CH33 §5.1 F0\"\n    window: 6d")
        #expect(edited != text)
        try edited.write(to: funnels, atomically: true, encoding: .utf8)
        let fromYAML = try CatalogLoader.loadChecked(directory: copy.path)
        #expect(fromYAML.funnels.first { $0.id == "F0" }?.windowSeconds == Int64(6 * 86_400), "the edited window, read from the YAML")

        // The original text back, and a broken QA rules file more: the bundled catalog must not
        // hide it (loadChecked reports a broken QA file), so the YAML is read and the load fails.
        try text.write(to: funnels, atomically: true, encoding: .utf8)
        #expect(try CatalogLoader.loadChecked(directory: copy.path) == BundledCatalog.catalog)
        try "rules: [unterminated\n".write(to: copy.appendingPathComponent("qa/zz_extra.yaml"), atomically: true, encoding: .utf8)
        #expect(BundledCatalogGenerator.comparedFiles(.directory(copy.path)) != BundledCatalog.files)
        #expect(throws: CatalogLoader.LoadError.self) { try CatalogLoader.loadChecked(directory: copy.path) }
    }
}

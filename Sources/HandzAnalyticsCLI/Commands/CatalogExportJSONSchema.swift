import ArgumentParser
import Foundation
import HandzCatalog

/// `handz-analytics catalog export-jsonschema --out DIR`.
struct CatalogExportJSONSchema: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-jsonschema",
        abstract: "Write JSON Schema (draft 2020-12): one schema per enabled event, plus catalog.schema.json."
    )

    @OptionGroup var options: CatalogOptions

    @Option(help: "Output directory (created if missing).")
    var out: String

    func run() throws {
        let catalog = try options.load()
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let schemas = JSONSchemaExporter(catalog: catalog).schemas()
        for (file, schema) in schemas {
            try (schema.serialized() + "\n").write(toFile: (out as NSString).appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        FileHandle.standardError.write(Data("wrote \(schemas.count) schemas to \(out)\n".utf8))
    }
}

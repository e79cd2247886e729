import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzTestSupport
import Testing

@Suite struct ExportTests {
    let catalog = RepositoryCatalog.catalog

    @Test("JSON Schema: one valid JSON document per enabled event plus the dispatching catalog schema")
    func jsonSchema() throws {
        let schemas = JSONSchemaExporter(catalog: catalog).schemas()
        #expect(schemas.count == catalog.events.filter(\.isEnabled).count + 1)
        for (file, schema) in schemas {
            let object = try JSONSerialization.jsonObject(with: Data(schema.serialized().utf8)) as? [String: Any]
            #expect(object?["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema", "\(file)")
        }
        let app = try JSONSerialization.jsonObject(with: Data(schemas.first { $0.file == "app_open.schema.json" }!.schema.serialized().utf8)) as! [String: Any]
        #expect(app["additionalProperties"] as? Bool == false)
        let properties = (app["properties"] as! [String: Any])["properties"] as! [String: Any]
        #expect(properties["required"] as? [String] == ["start_type", "launch_source"])
        #expect(!schemas.contains { $0.file == "gate_shown.schema.json" })
    }

    @Test("JSON Schema patterns are the formats' own patterns")
    func patterns() {
        let exporter = JSONSchemaExporter(catalog: catalog)
        let uuid = exporter.propertySchema(catalog.properties["session_id"]!).serialized(indent: 0)
        #expect(uuid.contains(StringFormat.uuid.pattern!.replacingOccurrences(of: "\\", with: "\\\\")))
        let optIn = exporter.propertySchema(catalog.properties["analytics_opt_in"]!).serialized(indent: 0)
        #expect(optIn.contains("\"const\":true"))
    }

    @Test("the Markdown reference lists every event and property")
    func docs() {
        let markdown = CatalogDocsWriter(catalog: catalog).markdown()
        for event in catalog.events { #expect(markdown.contains("`\(event.name)`"), "\(event.name)") }
        for property in catalog.properties.keys where catalog.properties[property]!.isEnabled {
            #expect(markdown.contains("`\(property)`"), "\(property)")
        }
    }

    @Test("the committed reference docs/catalog-reference.md is up to date with catalog/")
    func committedDocsCurrent() throws {
        let committed = try String(contentsOf: RepositoryCatalog.root.appendingPathComponent("docs/catalog-reference.md"), encoding: .utf8)
        #expect(committed == CatalogDocsWriter(catalog: catalog).markdown(), "regenerate: swift run handz-analytics catalog docs --out docs/catalog-reference.md")
    }
}

import ArgumentParser

/// `handz-analytics catalog …`: the catalog checks itself and exports what others need.
struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Check the catalog, classify changes, release it, export JSON Schema, write the analysts' reference.",
        subcommands: [CatalogLint.self, CatalogDiffCommand.self, CatalogReleaseCommand.self, CatalogExportJSONSchema.self, CatalogDocs.self, CatalogPrivacyReport.self]
    )
}

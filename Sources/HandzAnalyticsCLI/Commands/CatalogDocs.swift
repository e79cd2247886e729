import ArgumentParser
import Foundation
import HandzCatalog

/// `handz-analytics catalog docs [--out FILE]`: the Markdown event reference for analysts.
struct CatalogDocs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs",
        abstract: "Write a Markdown reference of every event and property (standard output, or --out FILE)."
    )

    @OptionGroup var options: CatalogOptions

    @Option(help: "Write to this file instead of standard output.")
    var out: String?

    func run() throws {
        let markdown = CatalogDocsWriter(catalog: try options.load()).markdown()
        if let out {
            try markdown.write(toFile: out, atomically: true, encoding: .utf8)
        } else {
            print(markdown, terminator: "")
        }
    }
}

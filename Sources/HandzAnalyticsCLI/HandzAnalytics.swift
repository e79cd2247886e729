import ArgumentParser
import Foundation

/// `handz-analytics`: the Handz analytics pipeline's command line — validate events against the
/// catalog, check and export the catalog, and generate synthetic corpora.
struct HandzAnalytics: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handz-analytics",
        abstract: "Validate, ingest and analyse Handz analytics events against the canonical catalog (CH33).",
        subcommands: [
            Serve.self, Validate.self, CatalogCommand.self, LintCommand.self, Corpus.self, Keys.self, Stats.self, LayerCommand.self, ForgetUser.self, Purge.self, Deletions.self,
            Codegen.self, Send.self, QueueCommand.self,
            Simulate.self, Import.self, Funnel.self, KPI.self, SQLCommand.self, Export.self, DashboardCommand.self, QA.self,
        ]
    )
}

/// Runs the root command. Usage errors exit with status 2 (the conventional status for a
/// command-line usage error), not ArgumentParser's default 64.
@main
enum Main {
    static func main() async {
        do {
            var command = try HandzAnalytics.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = HandzAnalytics.exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((HandzAnalytics.fullMessage(for: error) + "\n").utf8))
                exit(2)
            }
            HandzAnalytics.exit(withError: error)
        }
    }
}

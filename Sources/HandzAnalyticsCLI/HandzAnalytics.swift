import ArgumentParser
import Foundation
import HandzAnalyticsCore

/// `handz-analytics`: the Handz analytics pipeline's command line — validate events against the
/// catalog, check and export the catalog, and generate synthetic corpora.
struct HandzAnalytics: AsyncParsableCommand {
    /// The commands in four groups, by who runs them (issue 37 §3): the operator's ingest side,
    /// the analyst's, the catalog's owners, and the operator's upkeep of a store.
    static let configuration = CommandConfiguration(
        commandName: "handz-analytics",
        abstract: "Validate, ingest and analyse Handz analytics events against the canonical catalog (CH33).",
        version: HandzRelease.version,
        groupedSubcommands: [
            CommandGroup(name: "Ingest", subcommands: [Serve.self, Keys.self, Send.self, QueueCommand.self, Import.self, Validate.self]),
            CommandGroup(name: "Analyse", subcommands: [Funnel.self, KPI.self, Trend.self, Retention.self, Paths.self, DashboardCommand.self, SQLCommand.self, Export.self, Stats.self]),
            CommandGroup(name: "Catalog", subcommands: [CatalogCommand.self, LintCommand.self, Codegen.self, QA.self, Corpus.self, Simulate.self]),
            CommandGroup(name: "Operate", subcommands: [LayerCommand.self, Backup.self, Restore.self, ForgetUser.self, Deletions.self, Purge.self, Follow.self]),
        ]
    )
}

/// Runs the root command. Usage errors exit with status 2 (the conventional status for a
/// command-line usage error), not ArgumentParser's default 64.
@main
enum Main {
    static func main() async {
        do {
            var command = try HandzAnalytics.parseAsRoot(try ServeSettings.commandLine(CommandLine.arguments.dropFirst()))
            MemoryTuning.apply(for: command)
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

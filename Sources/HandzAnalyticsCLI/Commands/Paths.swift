import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzColumnStore
import HandzQuery
import HandzSynthetic

extension PathQuery.Direction: ExpressibleByArgument {}

/// What paths are asked for (issue 35 §4), for `paths` and `sql paths`.
struct PathOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The anchor: one series (events joined by |, closed-set filters in brackets); each session's first one in the range.",
                               valueName: "flow_save_attempt"))
    var anchor: String

    @Option(help: "next: the events after the anchor; previous: the events before it, nearest first.")
    var direction: PathQuery.Direction = .next

    @Option(help: "Steps: 1 to 5.")
    var depth = 3

    @Option(help: "Anchors from (inclusive): UTC date or ISO-8601 time of the events (device time).")
    var from: String

    @Option(help: "Anchors to (exclusive).")
    var to: String

    func validate() throws {
        try validateRange(from: from, to: to)
    }

    func query(_ catalog: Catalog) throws -> PathQuery {
        try usage {
            let query = PathQuery(anchor: try PathQuery.anchor(anchor, catalog: catalog), direction: direction, depth: depth,
                                  fromMs: TimestampFormat.milliseconds(from)!, toMs: TimestampFormat.milliseconds(to)!)
            try query.validate(catalog)
            return query
        }
    }
}

/// `handz-analytics paths --anchor … --from … --to …`: the commonest paths after (before) an event.
struct Paths: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The events sessions did right after (or right before) an event, 1 to 5 steps deep, counted in sessions (issue 35 §4)."
    )

    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var paths: PathOptions
    @OptionGroup var store: AnalysisStoreOptions

    @Option(help: "auto: the column engine when the store's column copy is current, else SQLite; columns: insist on it; sqlite: the SQL on the log. Same numbers.")
    var via: AnalysisEngine = .auto

    func run() throws {
        let catalog = try catalogOptions.load()
        let query = try paths.query(catalog)
        let report = try usage {
            try via.answer(store, catalog: catalog, columns: { try ColumnPaths(store: $0, catalog: catalog).run(query) }, log: { try $0.paths(query) })
        }
        print(PathOutput.render(report, as: store.format))
    }
}

extension SQLCommand {
    struct PathSQL: SQLTextCommand {
        static let configuration = CommandConfiguration(
            commandName: "paths",
            abstract: "Paths as SQL: rows (e1, …, eN, sessions), a step NULL where the session ended (started) sooner."
        )

        @OptionGroup var catalogOptions: CatalogOptions
        @OptionGroup var paths: PathOptions

        @Option(help: "sqlite, postgres, duckdb, clickhouse, spark or bigquery.")
        var dialect: SQLDialect

        func sqlText() throws -> String {
            let catalog = try catalogOptions.load()
            let query = try paths.query(catalog)
            return try usage { try PathSQLBuilder(catalog: catalog, dialect: dialect).sql(query) } + "\n"
        }
    }
}

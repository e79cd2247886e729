import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzColumnStore
import HandzQuery
import HandzSynthetic

extension RetentionQuery.Interval: ExpressibleByArgument {}

/// What a retention matrix is (issue 35 §2), for `retention` and `sql retention`.
struct RetentionOptions: ParsableArguments {
    @Option(help: "Cohorts of install time from (inclusive): UTC date or ISO-8601 time.")
    var from: String

    @Option(help: "Cohorts of install time to (exclusive).")
    var to: String

    @Option(help: "Cohorts and periods: day (periods 0-30) or week (0-12), exact 24 h and 7 × 24 h.")
    var interval: RetentionQuery.Interval = .day

    @Option(help: ArgumentHelp("What counts as a return: one series (events joined by |, closed-set filters in brackets), or any (every enabled event). Default app_open, the KPIs'.",
                               valueName: "app_open"))
    var returning = "app_open"

    @Option(help: "Who is counted: install (default) or user (installs resolved to their user_id).")
    var actor: ActorKind = .install

    func validate() throws {
        try validateRange(from: from, to: to)
    }

    func query(_ catalog: Catalog) throws -> RetentionQuery {
        try usage {
            let query = RetentionQuery(fromMs: TimestampFormat.milliseconds(from)!, toMs: TimestampFormat.milliseconds(to)!, interval: interval,
                                       returning: try RetentionQuery.returning(returning, catalog: catalog), actor: actor)
            try query.validate(catalog)
            return query
        }
    }
}

/// `handz-analytics retention --from … --to …`: the retention matrix of the embedded store.
struct Retention: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Retention cohorts by day or week of install time: for each period after it, who came back (issue 35 §2; D1/D7/D30 as the KPIs count them)."
    )

    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var retention: RetentionOptions
    @OptionGroup var store: AnalysisStoreOptions

    @Option(help: "auto: the column engine when the store's column copy is current, else SQLite; columns: insist on it; sqlite: the SQL on the log. Same numbers.")
    var via: AnalysisEngine = .auto

    func run() throws {
        let catalog = try catalogOptions.load()
        let query = try retention.query(catalog)
        let report = try usage {
            if let panels = try via.panels(db: store.db, catalog: catalog) {
                return try ColumnRetention(store: panels.store, catalog: catalog, firstSeen: panels.firstSeen).run(query)
            }
            return try store.open(catalog).retention(query)
        }
        print(RetentionOutput.render(report, as: store.format, catalog: catalog))
    }
}

extension SQLCommand {
    struct RetentionSQL: SQLTextCommand {
        static let configuration = CommandConfiguration(
            commandName: "retention",
            abstract: "One retention matrix as SQL: rows (kind, c, period, actors); kind 0 counts cohort actors by their last ended period (-1: none), kind 1 the actors who returned."
        )

        @OptionGroup var catalogOptions: CatalogOptions
        @OptionGroup var retention: RetentionOptions

        @Option(help: "sqlite, postgres, duckdb, clickhouse, spark or bigquery.")
        var dialect: SQLDialect

        func sqlText() throws -> String {
            let catalog = try catalogOptions.load()
            let query = try retention.query(catalog)
            return try usage { try RetentionSQLBuilder(catalog: catalog, dialect: dialect).sql(query) } + "\n"
        }
    }
}

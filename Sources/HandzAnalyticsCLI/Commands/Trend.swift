import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzColumnStore
import HandzQuery
import HandzSynthetic

extension TrendQuery.Measure: ExpressibleByArgument {}
extension TrendQuery.Interval: ExpressibleByArgument {}

/// What a trend is (issue 35 §1), for `trend` and `sql trend`.
struct TrendOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The series: enabled catalog events, series separated by commas, a union of events by |, closed-set filters in brackets (up to 8 series).",
                               valueName: "app_open,flow_saved_success|flow_draft_created[user_state=pro]"))
    var series: String

    @Option(help: "What is counted: events, installs, users (installs resolved to their user_id) or sessions.")
    var measure: TrendQuery.Measure = .events

    @Option(help: "Periods: day or week (exact 24 h and 7 × 24 h from --from), or month (calendar months, UTC).")
    var interval: TrendQuery.Interval = .day

    @Option(help: "From (inclusive): UTC date (2026-03-01) or ISO-8601 time of the events (device time).")
    var from: String

    @Option(help: "To (exclusive): UTC date or ISO-8601 time.")
    var to: String

    @Option(help: "Break down by a closed-set property every series' events carry, or app_version, build_number, catalog_version.")
    var breakdown: String?

    func validate() throws {
        try validateRange(from: from, to: to)
    }

    func query(_ catalog: Catalog) throws -> TrendQuery {
        try usage {
            let query = TrendQuery(series: try TrendQuery.series(series, catalog: catalog), measure: measure, interval: interval,
                                   fromMs: TimestampFormat.milliseconds(from)!, toMs: TimestampFormat.milliseconds(to)!, breakdown: breakdown)
            try query.validate(catalog)
            return query
        }
    }
}

/// `handz-analytics trend --series … --from … --to …`: a trend on the embedded store.
struct Trend: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count events, installs, users or sessions of one or more event series per day, week or month (issue 35 §1), optionally broken down by a closed-set property."
    )

    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var trend: TrendOptions
    @OptionGroup var store: AnalysisStoreOptions

    @Option(help: "auto: the column engine when the store's column copy is current, else SQLite; columns: insist on it; sqlite: the SQL on the log. Same numbers.")
    var via: AnalysisEngine = .auto

    func run() throws {
        let catalog = try catalogOptions.load()
        let query = try trend.query(catalog)
        let report = try usage {
            try via.answer(store, catalog: catalog, columns: { try ColumnTrend(store: $0, catalog: catalog).run(query) }, log: { try $0.trend(query) })
        }
        print(TrendOutput.render(report, as: store.format))
    }
}

extension SQLCommand {
    struct TrendSQL: SQLTextCommand {
        static let configuration = CommandConfiguration(
            commandName: "trend",
            abstract: "One trend as SQL: rows (series, period, value, other, n), period -1 over the whole range; series and periods numbered from 0."
        )

        @OptionGroup var catalogOptions: CatalogOptions
        @OptionGroup var trend: TrendOptions

        @Option(help: "sqlite, postgres, duckdb, clickhouse, spark or bigquery.")
        var dialect: SQLDialect

        func sqlText() throws -> String {
            let catalog = try catalogOptions.load()
            let query = try trend.query(catalog)
            return try usage { try TrendSQLBuilder(catalog: catalog, dialect: dialect).sql(query) } + "\n"
        }
    }
}

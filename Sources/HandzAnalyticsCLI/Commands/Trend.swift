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
    struct TrendSQL: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "trend",
            abstract: "One trend as SQL: rows (series, period, value, other, n), period -1 over the whole range; series and periods numbered from 0."
        )

        @OptionGroup var catalogOptions: CatalogOptions
        @OptionGroup var trend: TrendOptions

        @Option(help: "sqlite, postgres, duckdb, clickhouse, spark or bigquery.")
        var dialect: SQLDialect

        func run() throws {
            let catalog = try catalogOptions.load()
            let query = try trend.query(catalog)
            print(try usage { try TrendSQLBuilder(catalog: catalog, dialect: dialect).sql(query) })
        }
    }
}

/// Renders a trend: JSON (one object), CSV (one row per line and period, `total` last), or a table
/// (a row per period, a column per line).
enum TrendOutput {
    static func render(_ report: TrendReport, as format: OutputFormat) -> String {
        switch format {
        case .json: json(report)
        case .csv: csv(report)
        case .table: table(report)
        }
    }

    /// A line's breakdown value as printed: the value, "(not set)" or "(other)"; nil without a breakdown.
    static func valueText(_ line: TrendReport.Line, _ report: TrendReport) -> String? {
        guard report.query.breakdown != nil else { return nil }
        return line.isOther ? "(other)" : line.value ?? "(not set)"
    }

    static func json(_ report: TrendReport) -> String {
        var json = JSONText()
        json.beginObject()
        json.key("series")
        json.beginArray()
        for match in report.query.series { json.string(TrendQuery.text([match])) }
        json.endArray()
        json.field("measure", report.query.measure.rawValue)
        json.field("interval", report.query.interval.rawValue)
        json.field("from", isoTime(report.query.fromMs))
        json.field("to", isoTime(report.query.toMs))
        if let breakdown = report.query.breakdown { json.field("breakdown", breakdown) }
        json.key("periods")
        json.beginArray()
        for start in report.periodStarts { json.string(isoTime(start)) }
        json.endArray()
        json.key("lines")
        json.beginArray()
        for line in report.lines {
            json.beginObject()
            json.field("series", line.series)
            json.field("label", line.label)
            if report.query.breakdown != nil {
                json.key("value")
                if let value = line.value { json.string(value) } else { json.null() }
                json.field("other", line.isOther)
            }
            json.key("counts")
            json.beginArray()
            for count in line.counts { json.integer(count) }
            json.endArray()
            json.field("total", line.total)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.text
    }

    static func csv(_ report: TrendReport) -> String {
        var rows = ["series,label,value,period,count"]
        for line in report.lines {
            let prefix = "\(line.series),\(csvField(line.label)),\(csvField(valueText(line, report) ?? ""))"
            for (start, count) in zip(report.periodStarts, line.counts) { rows.append("\(prefix),\(isoTime(start)),\(count)") }
            rows.append("\(prefix),total,\(line.total)")
        }
        return rows.joined(separator: "\n")
    }

    static func csvField(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) ? "\"" + text.replacing("\"", with: "\"\"") + "\"" : text
    }

    static func table(_ report: TrendReport) -> String {
        let headers = ["period"] + report.lines.map { line in [line.label, valueText(line, report)].compactMap { $0 }.joined(separator: " · ") }
        var rows = zip(report.periodStarts.indices, report.periodStarts).map { index, start in
            [String(isoTime(start).prefix(10))] + report.lines.map { String($0.counts[index]) }
        }
        rows.append(["total"] + report.lines.map { String($0.total) })
        let widths = headers.indices.map { column in ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0 }
        let pad = { (cells: [String]) in
            zip(cells, widths).enumerated().map { index, pair in
                index == 0 ? pair.0.padding(toLength: pair.1, withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: pair.1 - pair.0.count) + pair.0
            }.joined(separator: "  ")
        }
        return ([pad(headers)] + rows.map(pad)).joined(separator: "\n")
    }
}

import Foundation
import HandzAnalysis
import HandzAnalyticsCore
@testable import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzTestSupport
import Testing

/// Trends (issue 35 §1) on the column engine give the numbers of the SQL on the log, for every
/// measure and interval, several series, filters, unions, breakdowns with and without "(other)";
/// and the SQL's numbers are the ones counted by hand from the log's rows.
@Suite struct ColumnTrendAgreementTests {
    let data = SimulatedStore.shared
    let catalog = RepositoryCatalog.catalog
    static let dayMs: Int64 = 86_400_000

    func engines() throws -> (columns: ColumnTrend, log: StoreAnalysis) {
        (ColumnTrend(store: try ColumnStore(directory: data.columnsDirectory), catalog: catalog), try StoreAnalysis(path: data.path, catalog: catalog))
    }

    func query(_ series: String, _ measure: TrendQuery.Measure, _ interval: TrendQuery.Interval, from: Int64, to: Int64,
               breakdown: String? = nil, limit: Int? = nil) throws -> TrendQuery {
        TrendQuery(series: try TrendQuery.series(series, catalog: catalog), measure: measure, interval: interval, fromMs: from, toMs: to,
                   breakdown: breakdown, breakdownLimit: limit)
    }

    @Test("every measure and interval, several series, filters, unions and breakdowns: the column engine agrees with the SQL on the log")
    func agrees() throws {
        let (columns, log) = try engines()
        let (from, to) = (SimulatedStore.fromMs, data.toMs)
        // A range that starts mid-month and mid-day, and ends before the data does.
        let (oddFrom, oddTo) = (from + 9 * Self.dayMs + 3_600_000, to - 2 * Self.dayMs)
        var checked = 0
        for measure in TrendQuery.Measure.allCases {
            for interval in TrendQuery.Interval.allCases {
                for (rangeFrom, rangeTo) in [(from, to), (oddFrom, oddTo)] {
                    let queries = [
                        try query("app_open", measure, interval, from: rangeFrom, to: rangeTo),
                        try query("app_open[launch_source=push|deep_link],flow_saved_success|flow_builder_opened,screen_viewed", measure, interval, from: rangeFrom, to: rangeTo),
                        try query("app_open,screen_viewed", measure, interval, from: rangeFrom, to: rangeTo, breakdown: "user_state"),
                        try query("app_open", measure, interval, from: rangeFrom, to: rangeTo, breakdown: "launch_source"),
                        try query("app_open,screen_viewed", measure, interval, from: rangeFrom, to: rangeTo, breakdown: "app_version", limit: 2),
                    ]
                    for query in queries {
                        let expected = try log.trend(query)
                        #expect(try columns.run(query) == expected, "\(measure) \(interval) \(TrendQuery.text(query.series)) \(query.breakdown ?? "")")
                        // Installs and sessions are counted in bits where they fit; the scan too.
                        if measure == .installs || measure == .sessions, query.breakdown == nil {
                            #expect(try columns.distinctCounts(query) != nil, "counted in bits: \(measure) \(interval)")
                        }
                        var scanning = columns
                        scanning.distinctBitBudget = 0
                        #expect(try scanning.run(query) == expected, "scan: \(measure) \(interval) \(TrendQuery.text(query.series)) \(query.breakdown ?? "")")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 4 * 3 * 2 * 5)
    }

    @Test("the SQL's numbers are the log's rows counted by hand: events, installs per day and over the range, calendar months, and an exact \"(other)\"")
    func countedByHand() throws {
        let (columns, _) = try engines()
        let database = try SQLiteDatabase(path: data.path, readOnly: true)
        let (from, to) = (SimulatedStore.fromMs, data.toMs)
        let scalar = { (sql: String) throws -> Int64 in try database.scalar(sql) ?? -1 }
        let inRange = "event_name = 'app_open' AND event_time_ms >= \(from) AND event_time_ms < \(to)"

        // Installs per day, and over the range (not the sum of the days).
        let installs = try columns.run(try query("app_open", .installs, .day, from: from, to: to))
        let line = try #require(installs.lines.first)
        #expect(installs.lines.count == 1 && line.counts.count == data.days)
        for day in 0..<data.days {
            let start = from + Int64(day) * Self.dayMs
            #expect(line.counts[day] == (try scalar("SELECT COUNT(DISTINCT install_id) FROM events WHERE event_name = 'app_open' AND event_time_ms >= \(start) AND event_time_ms < \(start + Self.dayMs)")))
        }
        #expect(line.total == (try scalar("SELECT COUNT(DISTINCT install_id) FROM events WHERE \(inRange)")))
        #expect(line.total < line.counts.reduce(0, +), "installs come back on several days")

        // Calendar months: 2026-03-01 … 2026-03-22 is one period; from 2026-02-20 the first is February's tail.
        let events = try columns.run(try query("app_open", .events, .month, from: from - 9 * Self.dayMs, to: to))
        #expect(events.periodStarts == [from - 9 * Self.dayMs, from])
        #expect(events.lines[0].counts == [0, try scalar("SELECT COUNT(*) FROM events WHERE \(inRange)")])

        // "(other)": the values past the limit counted together over their own events.
        let limited = try columns.run(try query("app_open", .installs, .week, from: from, to: to, breakdown: "launch_source", limit: 1))
        let kept = try #require(limited.lines.first { $0.value != nil && !$0.isOther }?.value)
        let other = try #require(limited.lines.first { $0.isOther })
        #expect(limited.lines.filter { $0.value != nil && !$0.isOther }.count == 1)
        #expect(other.total == (try scalar("""
            SELECT COUNT(DISTINCT install_id) FROM events WHERE \(inRange)
              AND json_extract(properties, '$.launch_source') IS NOT NULL AND json_extract(properties, '$.launch_source') <> '\(kept)'
            """)))
        let keptTotal = try scalar("SELECT COUNT(DISTINCT install_id) FROM events WHERE \(inRange) AND json_extract(properties, '$.launch_source') = '\(kept)'")
        #expect(limited.lines.first { $0.value == kept }?.total == keptTotal)
        // The kept value has the largest total of all values.
        let largest = try scalar("""
            SELECT MAX(n) FROM (SELECT COUNT(DISTINCT install_id) AS n FROM events WHERE \(inRange) GROUP BY json_extract(properties, '$.launch_source'))
            """)
        #expect(keptTotal == largest)
    }

    @Test("refused alike by both engines: no series, a disabled or unknown event, a breakdown a series' events do not carry, an empty range")
    func refusals() throws {
        let (columns, log) = try engines()
        let (from, to) = (SimulatedStore.fromMs, data.toMs)
        #expect(throws: QueryError.self) { try TrendQuery.series("", catalog: catalog) }
        #expect(throws: QueryError.self) { try TrendQuery.series("not_an_event", catalog: catalog) }
        #expect(throws: QueryError.self) { try TrendQuery.series((0...8).map { _ in "app_open" }.joined(separator: ","), catalog: catalog) }
        let uncarried = try query("app_open,flow_saved_success", .events, .day, from: from, to: to, breakdown: "launch_source")
        #expect(throws: QueryError.self) { try columns.run(uncarried) }
        #expect(throws: QueryError.self) { try log.trend(uncarried) }
        let empty = try query("app_open", .events, .day, from: to, to: from)
        #expect(throws: QueryError.self) { try columns.run(empty) }
        #expect(throws: QueryError.self) { try log.trend(empty) }
    }
}

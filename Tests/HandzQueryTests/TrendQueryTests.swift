import Foundation
import HandzAnalyticsCore
import HandzSQLite
import HandzTestSupport
import Testing
@testable import HandzQuery

/// The trend's periods and text form (issue 35 §1), and its SQL on a tiny hand-made log where
/// every number is known.
@Suite struct TrendQueryTests {
    let catalog = RepositoryCatalog.catalog
    static let dayMs: Int64 = 86_400_000

    @Test("calendar months in UTC: every month's first millisecond from 1970 to 2100 is Foundation's, and a month's own times map to it")
    func monthsAreCalendarMonths() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for year in 1970...2100 {
            for month in 1...12 {
                let start = calendar.date(from: DateComponents(year: year, month: month, day: 1))!
                let ms = Int64(start.timeIntervalSince1970 * 1000)
                #expect(UTCMonth(year: Int64(year), month: Int64(month)).startMs == ms, "\(year)-\(month)")
                let inside = UTCMonth(containing: ms + 17 * Self.dayMs + 3_600_000)
                #expect(inside.year == Int64(year) && inside.month == Int64(month))
                let lastMillisecond = UTCMonth(containing: ms - 1)
                #expect(lastMillisecond.next.startMs == ms, "the millisecond before \(year)-\(month) is in the month before")
            }
        }
    }

    @Test("periods: exact days and weeks from from; months start at from, then on each first of a month; a time's period is the last start at or before it")
    func periods() throws {
        let from = TimestampFormat.milliseconds("2026-02-20T06:00:00Z")!, to = TimestampFormat.milliseconds("2026-05-03")!
        var query = TrendQuery(series: [EventMatch(events: ["app_open"])], interval: .month, fromMs: from, toMs: to)
        #expect(query.periodStarts == [from] + ["2026-03-01", "2026-04-01", "2026-05-01"].map { TimestampFormat.milliseconds($0)! })
        let starts = query.periodStarts
        #expect(query.period(of: from, monthStarts: starts) == 0)
        #expect(query.period(of: starts[1] - 1, monthStarts: starts) == 0)
        #expect(query.period(of: starts[1], monthStarts: starts) == 1)
        #expect(query.period(of: to - 1, monthStarts: starts) == 3)
        query.interval = .week
        #expect(query.periodStarts.count == 11 && query.periodStarts[1] == from + 7 * Self.dayMs)
        #expect(query.period(of: from + 7 * Self.dayMs - 1, monthStarts: []) == 0)
        query.interval = .day
        #expect(query.periodStarts.count == 72 && query.periodStarts.last! == from + 71 * Self.dayMs)
    }

    @Test("the text form: series by commas, unions by |, filters in brackets; refusals name the series, never the text")
    func textForm() throws {
        let series = try TrendQuery.series("app_open[launch_source=push|deep_link],flow_saved_success|flow_draft_created", catalog: catalog)
        #expect(series == [EventMatch(events: ["app_open"], filters: [PropertyFilter(property: "launch_source", values: ["push", "deep_link"])]),
                           EventMatch(events: ["flow_saved_success", "flow_draft_created"])])
        #expect(try TrendQuery.series(TrendQuery.text(series), catalog: catalog) == series)
        for (text, says) in [("app_open,zz_secret_value", "series 2"), ("app_open[launch_source=zz_secret_value]", "series 1")] {
            do {
                _ = try TrendQuery.series(text, catalog: catalog)
                Issue.record("\(says) should be refused")
            } catch {
                #expect(error.description.contains(says) && !error.description.contains("zz_secret_value"), "\(error.description)")
            }
        }
    }

    @Test("the SQLite SQL on a hand-made log: events, installs, users and sessions per day and over the range, a breakdown, and \"(other)\"")
    func sqlOnAHandMadeLog() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute(EventsDDL.createTable(.sqlite))
        let from = TimestampFormat.milliseconds("2026-03-01")!
        // (install, session, user, day, hour, launch_source)
        let rows: [(String, String, String?, Int64, Int64, String)] = [
            ("i1", "s1", nil, 0, 1, "push"), ("i1", "s1", nil, 0, 2, "push"), ("i1", "s2", "u1", 1, 1, "direct"),
            ("i2", "s3", "u1", 0, 5, "deep_link"), ("i3", "s4", nil, 1, 23, "push"), ("i3", "s5", nil, 2, 0, "push"),
        ]
        let insert = try database.prepare("""
            INSERT INTO events VALUES (randomblob(16), 'app_open', ?1, ?1, ?2, ?3, ?4, 'free', '1.4.2', '418', 'iOS', 'iOS 18.6', 'iPhone15,2', 'en_US', 'UTC',
              'online', 'hzk_test', '1.0.0', ?5)
            """)
        for (install, session, user, day, hour, source) in rows {
            try insert.run([.integer(from + day * Self.dayMs + hour * 3_600_000), .text(install), .text(session), user.map { .text($0) } ?? .null,
                            .text("{\"start_type\":\"cold\",\"launch_source\":\"\(source)\"}")])
        }
        func report(_ measure: TrendQuery.Measure, breakdown: String? = nil, limit: Int? = nil) throws -> TrendReport {
            let query = TrendQuery(series: [EventMatch(events: ["app_open"])], measure: measure, interval: .day, fromMs: from, toMs: from + 3 * Self.dayMs,
                                   breakdown: breakdown, breakdownLimit: limit)
            return TrendReport.run(query) { kept in
                try! database.prepare(try! TrendSQLBuilder(catalog: catalog, dialect: .sqlite).sql(query, kept: kept)).query { row in
                    TrendReport.Row(series: Int(row.int64(0)), period: Int(row.int64(1)), value: row.isNull(2) ? nil : row.text(2), isOther: row.int64(3) != 0,
                                    count: row.int64(4))
                }
            }
        }
        #expect(try report(.events).lines.map { [$0.counts, [$0.total]] } == [[[3, 2, 1], [6]]])
        #expect(try report(.installs).lines.map { [$0.counts, [$0.total]] } == [[[2, 2, 1], [3]]])
        // i1 signs in as u1 on day 1: from its first event on, i1 and i2 are one user (CH33 §3.1).
        #expect(try report(.users).lines.map { [$0.counts, [$0.total]] } == [[[1, 2, 1], [2]]])
        #expect(try report(.sessions).lines.map { [$0.counts, [$0.total]] } == [[[2, 2, 1], [5]]])
        let bySource = try report(.installs, breakdown: "launch_source")
        #expect(bySource.lines.map(\.value) == ["push", "deep_link", "direct"])
        #expect(bySource.lines.map(\.total) == [2, 1, 1])
        // One value kept, push; "(other)" holds i2 (deep_link, day 0) and i1 (direct, day 1).
        let limited = try report(.installs, breakdown: "launch_source", limit: 1)
        #expect(limited.lines.map(\.value) == ["push", nil])
        #expect(limited.lines.last?.isOther == true && limited.lines.last?.total == 2 && limited.lines.last?.counts == [1, 1, 0])
    }
}

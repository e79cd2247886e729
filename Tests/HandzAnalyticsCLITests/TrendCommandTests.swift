import Foundation
import HandzTestSupport
import Testing

/// `handz-analytics trend`, `retention` and their `sql` (issue 35 §1–2): the same numbers from a
/// segment store, from a store of the SQLite log through the column engine and through its SQL,
/// in JSON, CSV and the table; and the usage errors.
@Suite(.serialized) struct TrendCommandTests {
    static let range = ["--from", "2026-03-01", "--to", "2026-03-15"]

    @Test("the segment store, the SQLite log's column copy and its SQL (--via sqlite) give one trend; CSV and the table carry the JSON's numbers")
    func enginesAndFormats() throws {
        let files = try SimulatedFiles("handz-trend-cli")
        defer { files.remove() }
        let log = files.directory.appendingPathComponent("log.sqlite").path
        #expect(try CommandRunner.run(["import", "--db", files.db, files.events]).status == 0)
        #expect(try CommandRunner.run(["import", "--db", log, "--engine", "sqlite", files.events]).status == 0)
        let trend = ["trend", "--series", "app_open,screen_viewed[user_state=free|pro]", "--measure", "installs", "--interval", "week",
                     "--breakdown", "app_version"] + Self.range
        let segments = try CommandRunner.run(trend + ["--db", files.db, "--format", "json"])
        #expect(segments.status == 0, "\(segments.stderr)")
        #expect(try CommandRunner.run(trend + ["--db", log, "--format", "json"]).stdout == segments.stdout)
        #expect(try CommandRunner.run(trend + ["--db", log, "--format", "json", "--via", "sqlite"]).stdout == segments.stdout)
        let refused = try CommandRunner.run(trend + ["--db", files.db, "--via", "sqlite"])
        #expect(refused.status != 0 && refused.stderr.contains("export sqlite"), "a segment store's log holds none of its events")

        let report = try #require(try JSONSerialization.jsonObject(with: Data(segments.stdout.utf8)) as? [String: Any])
        let lines = try #require(report["lines"] as? [[String: Any]])
        #expect((report["periods"] as? [String])?.count == 2)
        #expect(lines.count >= 2 && Set(lines.map { $0["series"] as? Int }) == [0, 1])
        // CSV: a row per line and period, then the line's total.
        let csv = try CommandRunner.run(trend + ["--db", files.db, "--format", "csv"]).stdout.split(separator: "\n").map(String.init)
        #expect(csv.first == "series,label,value,period,count")
        #expect(csv.count == 1 + lines.count * 3)
        let csvTotals = csv.filter { $0.contains(",total,") }.map { Int64($0.split(separator: ",").last!)! }
        #expect(csvTotals == lines.map { ($0["total"] as? NSNumber)?.int64Value ?? -1 })
        // The table: a row per period and the totals, a column per line.
        let table = try CommandRunner.run(trend + ["--db", files.db]).stdout.split(separator: "\n")
        #expect(table.count == 1 + 2 + 1 && table.last?.hasPrefix("total") == true)
        #expect(table.last?.split(separator: " ", omittingEmptySubsequences: true).dropFirst().map { Int64($0)! } == csvTotals)
    }

    @Test("sql trend prints one statement per dialect; usage errors name what is wrong, never the value")
    func sqlAndUsage() throws {
        for dialect in ["sqlite", "postgres", "duckdb", "clickhouse", "spark", "bigquery"] {
            let sql = try CommandRunner.run(["sql", "trend", "--series", "app_open", "--measure", "users", "--interval", "month", "--dialect", dialect] + Self.range)
            #expect(sql.status == 0 && sql.stdout.contains("um AS (") && sql.stdout.contains("COUNT(DISTINCT member)"), "\(dialect): \(sql.stderr)")
        }
        for (arguments, says) in [(["--series", "zz_unknown"], "series 1"), (["--series", "app_open", "--measure", "zz"], "measure"),
                                  (["--series", "app_open,flow_saved_success", "--breakdown", "launch_source"], "flow_saved_success does not carry launch_source")] {
            let run = try CommandRunner.run(["sql", "trend", "--dialect", "sqlite"] + arguments + Self.range)
            #expect(run.status != 0 && run.stderr.contains(says) && !run.stderr.contains("zz_unknown"), "\(arguments): \(run.stderr)")
        }
    }

    @Test("retention: one matrix from the segment store, the SQLite log's column copy and its SQL; the table's curve is the JSON's; D1 is the KPI's")
    func retention() throws {
        let files = try SimulatedFiles("handz-retention-cli")
        defer { files.remove() }
        let log = files.directory.appendingPathComponent("log.sqlite").path
        #expect(try CommandRunner.run(["import", "--db", files.db, files.events]).status == 0)
        #expect(try CommandRunner.run(["import", "--db", log, "--engine", "sqlite", files.events]).status == 0)
        let retention = ["retention", "--interval", "day"] + Self.range
        let segments = try CommandRunner.run(retention + ["--db", files.db, "--format", "json"])
        #expect(segments.status == 0, "\(segments.stderr)")
        #expect(try CommandRunner.run(retention + ["--db", log, "--format", "json"]).stdout == segments.stdout)
        #expect(try CommandRunner.run(retention + ["--db", log, "--format", "json", "--via", "sqlite"]).stdout == segments.stdout)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(segments.stdout.utf8)) as? [String: Any])
        let overall = try #require(report["overall"] as? [String: Any])
        let returned = (overall["returned"] as? [NSNumber] ?? []).map(\.int64Value), eligible = (overall["eligible"] as? [NSNumber] ?? []).map(\.int64Value)
        #expect((report["cohorts"] as? [Any])?.count == 14 && returned.count == 31)
        let kpi = try #require(try JSONSerialization.jsonObject(with: Data(try CommandRunner.run(["kpi", "retention_d1", "--db", files.db, "--format", "json"] + Self.range).stdout.utf8)) as? [String: Any])
        #expect((kpi["numerator"] as? NSNumber)?.int64Value == returned[1] && (kpi["denominator"] as? NSNumber)?.int64Value == eligible[1])
        let table = try CommandRunner.run(retention + ["--db", files.db]).stdout.split(separator: "\n")
        #expect(table.count == 1 + 14 + 1 && table.last?.hasPrefix("all") == true)
        #expect(table.first?.contains("D30") == true)
    }
}

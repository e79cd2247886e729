import Foundation
import HandzTestSupport
import Testing

/// The explorer's funnel modes (issue 35 §3) against the real server on a store the real
/// `import` made: the order, the exclusions and conversion over time become a shareable address,
/// every figure is the CLI's `funnel --steps` with the same modes, and refusals never echo.
@Suite(.serialized) struct ServedFunnelModesTests {
    static let range = "range=custom&from=2026-03-01&to=2026-03-14"
    static let steps = "app_open,onboarding_viewed,flow_builder_opened%7Clibrary_viewed"

    /// `funnel --format json` on the served store.
    static func cli(_ served: ServedSimulatedStore, _ arguments: [String]) throws -> [String: Any] {
        let run = try CommandRunner.run(["funnel", "--db", served.database, "--format", "json", "--from", "2026-03-01", "--to", "2026-03-15",
                                         "--steps", "app_open,onboarding_viewed,flow_builder_opened|library_viewed"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    static func actors(_ steps: Any?) -> [Int64] {
        (steps as? [[String: Any]] ?? []).map { ($0["actors"] as? NSNumber)?.int64Value ?? -1 }
    }

    @Test("strict and any order, exclusions and conversion over time: each step and day on the page is the CLI's")
    func pageIsTheCLI() throws {
        let served = try ServedSimulatedStore("handz-served-funnel-modes", installs: 120, days: 14, seed: 35)
        defer { served.stop() }
        for (query, arguments) in [
            ("order=strict", ["--order", "strict"]),
            ("order=any", ["--order", "any"]),
            ("exclude=screen_viewed%402-3&exclude=app_background", ["--exclude", "screen_viewed@2-3", "--exclude", "app_background"]),
            ("by=day", ["--by-day"]),
        ] {
            let page = try served.get("/dashboards/explore?steps=\(Self.steps)&\(query)&" + Self.range)
            #expect(page.status == 200, "\(query): \(page.status)")
            let tables = dataTables(page.body)
            let funnel = try #require(tables["p-explorer-0-table"], "\(query)")
            let report = try Self.cli(served, arguments)
            let expected = Self.actors(report["steps"])
            #expect(expected.first ?? 0 > 0, "\(query): someone entered")
            #expect(funnel.dropFirst().map { tableInteger($0[2]) } == expected.map { Optional($0) }, "\(query)")
            // The mode is kept in the form, so the next run keeps it.
            if query == "order=strict" { #expect(page.body.contains("<option value=\"strict\" selected>")) }
            guard query == "by=day" else {
                #expect(tables["p-over-time-table"] == nil)
                continue
            }
            let days = try #require(tables["p-over-time-table"]).dropFirst()
            let byDay = report["by_entry_day"] as? [[String: Any]] ?? []
            #expect(days.count == 14 && byDay.count == 14)
            for (row, day) in zip(days, byDay) {
                #expect(row[0] == day["day"] as? String)
                #expect(tableInteger(row[1]) == (day["entered"] as? NSNumber)?.int64Value, "\(row[0])")
                #expect(tableInteger(row[2]) == (day["completed"] as? NSNumber)?.int64Value, "\(row[0])")
            }
            #expect(page.body.contains("id=\"p-over-time-chart\""))
        }
    }

    @Test("refused without echo: an order outside its set, an exclusion the catalog refuses, by-day with a breakdown, exclusions in a strict funnel")
    func refusals() throws {
        let served = try ServedSimulatedStore("handz-served-funnel-modes-refusals", installs: 20, days: 5, seed: 36)
        defer { served.stop() }
        for query in ["order=zz_bad", "exclude=zz_not_an_event", "exclude=app_background%409-12zz", "by=day&breakdown=launch_source",
                      "order=strict&exclude=app_background", "by=zz_week"] {
            let page = try served.get("/dashboards/explore?steps=\(Self.steps)&" + query)
            #expect(page.status == 400, "\(query): \(page.status)")
            #expect(!page.body.contains("zz_"), "\(query): the value is not echoed")
        }
        #expect(try served.get("/dashboards/trends?series=app_open&order=strict").status == 400, "order is the explorer's")
    }
}

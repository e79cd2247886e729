import Foundation
import HandzTestSupport
import Testing

/// The paths page `serve` hosts (issue 35 §4), against the real server: every path and step on
/// the page is the CLI's `paths` on the same store; refusals never echo.
@Suite(.serialized) struct ServedPathsTests {
    @Test("next and previous: the page's paths and steps are the CLI's; a refused anchor or depth is a 400 without echo")
    func pageIsTheCLI() throws {
        let served = try ServedSimulatedStore("handz-served-paths", installs: 120, days: 21, seed: 16)
        defer { served.stop() }
        #expect(try served.get("/dashboards/paths").status == 200)
        for (query, arguments) in [("anchor=screen_viewed", ["--anchor", "screen_viewed"]),
                                   ("anchor=flow_save_attempt&direction=previous&depth=2", ["--anchor", "flow_save_attempt", "--direction", "previous", "--depth", "2"])] {
            let page = try served.get("/dashboards/paths?range=custom&from=2026-03-01&to=2026-03-14&" + query)
            #expect(page.status == 200, "\(query)")
            let run = try CommandRunner.run(["paths", "--db", served.database, "--format", "json", "--from", "2026-03-01", "--to", "2026-03-15"] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            let paths = try #require(report["paths"] as? [[String: Any]])
            let ended = query.contains("previous") ? "(session started)" : "(session ended)"
            let rows = try #require(dataTables(page.body)["p-paths-table"]).dropFirst()
            #expect(rows.count == min(paths.count, 50) && !rows.isEmpty)
            for (row, path) in zip(rows, paths) {
                let steps = (path["steps"] as? [Any] ?? []).map { ($0 as? String) ?? ended }
                #expect(Array(row.prefix(steps.count)) == steps, "\(query)")
                #expect(tableInteger(row[steps.count]) == (path["sessions"] as? NSNumber)?.int64Value, "\(query)")
            }
            #expect(page.body.contains("id=\"p-paths-chart\"") && page.body.contains("<svg"))
            #expect(!page.body.contains("id=\"compare\""), "paths have no comparison, so no control for one")
        }
        for query in ["anchor=zz_not_an_event", "anchor=app_open&depth=9", "anchor=app_open&direction=zz_sideways", "anchor=app_open,zz_two"] {
            let page = try served.get("/dashboards/paths?" + query)
            #expect(page.status == 400 && !page.body.contains("zz_"), "\(query): \(page.status)")
        }
    }
}

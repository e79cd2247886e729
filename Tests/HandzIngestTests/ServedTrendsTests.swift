import Foundation
import HandzTestSupport
import Testing

/// The trends page `serve` hosts (issue 35 §1), against the real server on a store the real
/// `import` made: every figure is the CLI's `trend` on the same store, the pickers become a
/// shareable address, the comparison adds the previous period, and refusals never echo.
@Suite(.serialized) struct ServedTrendsTests {
    static let range = "range=custom&from=2026-03-01&to=2026-03-21"

    /// `trend --format json` on the served store: each line's name, period counts and total.
    static func cli(_ served: ServedSimulatedStore, _ arguments: [String]) throws -> [(name: String, counts: [Int64], total: Int64)] {
        let run = try CommandRunner.run(["trend", "--db", served.database, "--format", "json", "--from", "2026-03-01", "--to", "2026-03-22"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let breakdown = report["breakdown"] != nil
        return (report["lines"] as? [[String: Any]] ?? []).map { line in
            let value = (line["other"] as? Bool == true) ? "(other)" : (line["value"] as? String ?? "(not set)")
            let name = (line["label"] as? String ?? "") + (breakdown ? " · " + value : "")
            return (name, (line["counts"] as? [NSNumber] ?? []).map(\.int64Value), (line["total"] as? NSNumber)?.int64Value ?? -1)
        }
    }

    @Test("series, measures, intervals and a breakdown: every period and total on the page is the CLI's; pickers redirect to the text form")
    func pageIsTheCLI() throws {
        let served = try ServedSimulatedStore("handz-served-trends", installs: 120, days: 21, seed: 12)
        defer { served.stop() }
        let empty = try served.get("/dashboards/trends")
        #expect(empty.status == 200 && empty.body.contains("id=\"trends\"") && !empty.body.contains("id=\"p-trend-table\""))

        let picked = try served.get("/dashboards/trends?event=app_open&event=screen_viewed&event=&measure=installs&interval=week&" + Self.range)
        #expect(picked.status == 303)
        #expect(picked.header("Location")?.contains("series=app_open,screen_viewed") == true, "\(picked.allHeaders)")

        for (query, arguments) in [
            ("series=app_open,screen_viewed&measure=installs&interval=week", ["--series", "app_open,screen_viewed", "--measure", "installs", "--interval", "week"]),
            ("series=app_open%5Blaunch_source%3Dpush%7Cdeep_link%5D&measure=users", ["--series", "app_open[launch_source=push|deep_link]", "--measure", "users"]),
            ("series=app_open&measure=sessions&interval=month&breakdown=launch_source", ["--series", "app_open", "--measure", "sessions", "--interval", "month",
                                                                                         "--breakdown", "launch_source"]),
        ] {
            let page = try served.get("/dashboards/trends?\(query)&" + Self.range)
            #expect(page.status == 200, "\(query)")
            let tables = dataTables(page.body)
            let periods = try #require(tables["p-trend-table"], "\(query)")
            let totals = try #require(tables["p-trend-totals"], "\(query)")
            let expected = try Self.cli(served, arguments)
            #expect(!expected.isEmpty && expected.contains { $0.total > 0 })
            #expect(Array(periods[0].dropFirst()) == expected.map(\.name), "\(query): one column per line")
            for (index, line) in expected.enumerated() {
                #expect(periods.dropFirst().map { tableInteger($0[index + 1]) } == line.counts.map { Optional($0) }, "\(query) \(line.name)")
                #expect(Array(totals[index + 1].prefix(2)) == [line.name, Int(line.total).withThousands], "\(query) \(line.name)")
            }
            #expect(page.body.contains("<svg") && page.body.contains("id=\"p-trend-chart\""))
        }

        // The comparison: the previous 21 days beside each total.
        let compared = try served.get("/dashboards/trends?series=app_open&measure=installs&compare=previous&" + Self.range)
        #expect(compared.status == 200)
        #expect(dataTables(compared.body)["p-trend-totals"]?.first == ["Line", "Total", "Previous period", "Change"])
        #expect(compared.body.contains("stroke-dasharray=\"4 3\""), "the previous period drawn faded")
    }

    @Test("refused without echo: an unknown event, a measure or interval outside its set, a breakdown a series does not carry, a page parameter of another page")
    func refusals() throws {
        let served = try ServedSimulatedStore("handz-served-trends-refusals", installs: 20, days: 5, seed: 13)
        defer { served.stop() }
        for query in ["series=zz_not_an_event", "series=app_open&measure=zz_bad", "series=app_open&interval=zz_bad", "event=zz_not_an_event",
                      "series=app_open,flow_saved_success&breakdown=launch_source", "series=app_open&steps=app_open,flow_saved_success"] {
            let page = try served.get("/dashboards/trends?" + query)
            #expect(page.status == 400, "\(query): \(page.status)")
            #expect(!page.body.contains("zz_"), "\(query): the value is not echoed")
        }
        #expect(try served.get("/dashboards/explore?series=app_open").status == 400, "series is the trends page's")
    }
}

extension Int {
    /// `12345` → `12,345`, as the pages print integers.
    var withThousands: String {
        var out = ""
        for (index, character) in String(self).reversed().enumerated() {
            if index > 0, index % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return String(out.reversed())
    }
}

import Foundation
import HandzTestSupport
import Testing

/// The retention page `serve` hosts (issue 35 §2), against the real server: every rate and count
/// is the CLI's `retention` on the same store, and refusals never echo.
@Suite(.serialized) struct ServedRetentionTests {
    @Test("days and weeks, installs and users, app_open and any event: the matrix of counts on the page is the CLI's; the curve row sums the cohorts")
    func pageIsTheCLI() throws {
        let served = try ServedSimulatedStore("handz-served-retention", installs: 120, days: 21, seed: 14)
        defer { served.stop() }
        for (query, arguments) in [("", [String]()), ("&interval=week&returning=any", ["--interval", "week", "--returning", "any"]),
                                   ("&actor=user&returning=flow_saved_success%7Cpractice_session_started", ["--actor", "user", "--returning", "flow_saved_success|practice_session_started"])] {
            let page = try served.get("/dashboards/retention?range=custom&from=2026-03-01&to=2026-03-14" + query)
            #expect(page.status == 200, "\(query)")
            let run = try CommandRunner.run(["retention", "--db", served.database, "--format", "json", "--from", "2026-03-01", "--to", "2026-03-15"] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            let cohorts = (report["cohorts"] as? [[String: Any]] ?? []) + [report["overall"] as? [String: Any] ?? [:]]
            let counts = try #require(dataTables(page.body)["p-retention-counts"], "\(query)").dropFirst()
            #expect(counts.count == cohorts.count, "\(query): a row per cohort and the curve")
            for (row, cohort) in zip(counts, cohorts) {
                let returned = (cohort["returned"] as? [NSNumber] ?? []).map(\.int64Value)
                let eligible = (cohort["eligible"] as? [NSNumber] ?? []).map(\.int64Value)
                #expect(tableInteger(row[1]) == (cohort["actors"] as? NSNumber)?.int64Value, "\(query) \(row[0])")
                #expect(Array(row.dropFirst(2)) == zip(returned, eligible).map { "\(Int($0).withThousands) / \(Int($1).withThousands)" }, "\(query) \(row[0])")
            }
            #expect((report["overall"] as? [String: Any])?["actors"] as? Int ?? 0 > 0)
            #expect(page.body.contains("id=\"p-retention-chart\""))
        }
        let compared = try served.get("/dashboards/retention?compare=previous&range=custom&from=2026-03-08&to=2026-03-14")
        #expect(compared.status == 200 && dataTables(compared.body)["p-retention-rates"]?.last?.first == "Previous period")
    }

    @Test("refused without echo: an unknown returning event, a month interval, a trends parameter")
    func refusals() throws {
        let served = try ServedSimulatedStore("handz-served-retention-refusals", installs: 20, days: 5, seed: 15)
        defer { served.stop() }
        for query in ["returning=zz_not_an_event", "interval=month", "returning=app_open,zz_two_series", "series=app_open"] {
            let page = try served.get("/dashboards/retention?" + query)
            #expect(page.status == 400, "\(query): \(page.status)")
            #expect(!page.body.contains("zz_"), "\(query): the value is not echoed")
        }
    }
}

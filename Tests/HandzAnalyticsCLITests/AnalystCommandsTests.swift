import Foundation
import HandzAnalyticsCore
import HandzQuery
import HandzSynthetic
import HandzTestSupport
import Testing

/// The analyst's path as a user runs it: simulate, import, funnel, kpi, sql.
@Suite(.serialized) struct AnalystCommandsTests {
    static func simulate(installs: Int, days: Int, seed: UInt64) -> [String] {
        var simulator = JourneySimulator(catalog: RepositoryCatalog.catalog, options: .init(installs: installs, days: days, seed: seed))
        var lines: [String] = []
        simulator.run { lines.append($0) }
        return lines
    }

    struct Line: Decodable {
        let event_id: String
        let event_name: String
        let event_time_utc: String
        let install_id: String
        let user_id: String?
    }

    @Test("simulated journeys are catalog-valid and hold guests converting, ties, retries and out-of-order arrival")
    func simulatedJourneys() throws {
        let lines = Self.simulate(installs: 200, days: 21, seed: 5)
        var validator = EventValidator(catalog: RepositoryCatalog.compiled)
        for line in lines {
            let verdict = validator.validate(line)
            #expect(verdict.isAccepted, "\(verdict.issues.map(\.code.rawValue))")
        }
        let parsed = try lines.map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        // Retries: the same event_id twice, byte-identical.
        #expect(Set(parsed.map(\.event_id)).count < parsed.count)
        // Guests converting: an install with events both without and with a user_id.
        let byInstall = Dictionary(grouping: parsed, by: \.install_id)
        #expect(byInstall.values.contains { events in events.contains { $0.user_id == nil } && events.contains { $0.user_id != nil } })
        // Out of order: within an install, a later line with an earlier time.
        #expect(byInstall.values.contains { events in zip(events, events.dropFirst()).contains { $0.event_time_utc > $1.event_time_utc } })
        // Ties: two different events of one install at the same millisecond.
        #expect(byInstall.values.contains { events in
            Dictionary(grouping: events, by: \.event_time_utc).values.contains { Set($0.map(\.event_id)).count > 1 }
        })
        // Every funnel step's events occur.
        let names = Set(parsed.map(\.event_name))
        for funnel in RepositoryCatalog.catalog.funnels {
            for step in funnel.steps { #expect(step.events.contains(where: names.contains), "\(funnel.id) \(step.events)") }
        }
    }

    @Test("the same seed writes the same file; another seed another")
    func deterministic() throws {
        #expect(Self.simulate(installs: 30, days: 7, seed: 9) == Self.simulate(installs: 30, days: 7, seed: 9))
        #expect(Self.simulate(installs: 30, days: 7, seed: 9) != Self.simulate(installs: 30, days: 7, seed: 10))
    }

    @Test("import stores valid lines once, reports retries as duplicates and rejected lines by code, never their values")
    func importAndFunnel() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = directory.appendingPathComponent("events.ndjson").path
        let db = directory.appendingPathComponent("store.sqlite").path
        let simulated = try CommandRunner.run(["simulate", "--installs", "60", "--days", "14", "--seed", "3", "--out", events])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        var text = try String(contentsOfFile: events, encoding: .utf8)
        let lines = text.split(separator: "\n").count
        let secret = "someone@example.com"
        text += "{\"event_name\":\"\(secret)\"}\n\nnot json\n"
        try text.write(toFile: events, atomically: true, encoding: .utf8)

        let imported = try CommandRunner.run(["import", "--db", db, events])
        #expect(imported.status == 1)
        #expect(!imported.stdout.contains(secret) && !imported.stderr.contains(secret))
        let summary = try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as! [String: Any]
        #expect(summary["lines"] as? Int == lines + 2)
        #expect(summary["rejected"] as? Int == 2)
        let accepted = summary["accepted"] as! Int, duplicates = summary["duplicates"] as! Int
        #expect(accepted + duplicates == lines && duplicates > 0)
        #expect((summary["rejected_by_code"] as! [String: Int])["malformed_json"] == 1)

        let again = try CommandRunner.run(["import", "--db", db, events])
        let second = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as! [String: Any]
        #expect(second["accepted"] as? Int == 0)

        let funnel = try CommandRunner.run(["funnel", "F0", "--db", db, "--from", "2026-03-01", "--to", "2026-03-15", "--format", "json", "--breakdown", "start_type"])
        #expect(funnel.status == 0, "\(funnel.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(funnel.stdout.utf8)) as! [String: Any]
        #expect(report["funnel"] as? String == "F0")
        #expect(report["from"] as? String == "2026-03-01T00:00:00.000Z")
        #expect(report["window_seconds"] as? Int == 604_800)
        #expect(report["actor"] as? String == "install")
        let steps = report["steps"] as! [[String: Any]]
        #expect(steps.map { $0["index"] as! Int } == [1, 2, 3, 4, 5])
        #expect(steps[2]["events"] as? [String] == ["flow_builder_opened", "library_viewed"])
        let actors = steps.map { $0["actors"] as! Int }
        #expect(actors[0] > 0 && actors == actors.sorted(by: >))
        #expect(steps[0]["conversion_from_start"] as? Double == 1)
        #expect(steps[0]["median_seconds_from_previous"] is NSNull)
        let buckets = report["breakdown"] as! [[String: Any]]
        let bucketStarts = buckets.map { ($0["steps"] as! [[String: Any]])[0]["actors"] as! Int }
        #expect(bucketStarts.reduce(0, +) == actors[0])

        // The same steps as an ad-hoc funnel (issue 16 §3): the same step rows, no success row.
        let f0 = try #require(RepositoryCatalog.catalog.funnels.first { $0.id == "F0" })
        let adHoc = try CommandRunner.run(["funnel", "--steps", AdHocFunnel.text(f0.steps), "--db", db, "--from", "2026-03-01", "--to", "2026-03-15",
                                           "--format", "json", "--breakdown", "start_type"])
        #expect(adHoc.status == 0, "\(adHoc.stderr)")
        let adHocReport = try JSONSerialization.jsonObject(with: Data(adHoc.stdout.utf8)) as! [String: Any]
        #expect(adHocReport["funnel"] as? String == AdHocFunnel.id && adHocReport["window_seconds"] as? Int == 604_800)
        #expect((adHocReport["steps"] as! [[String: Any]]).map { $0["actors"] as! Int } == actors)
        #expect(adHocReport["success"] == nil || adHocReport["success"] is NSNull)
        let bucketRows = { (report: [String: Any]) in (report["breakdown"] as! [[String: Any]]).map { "\($0["value"] ?? "-") \(($0["steps"] as! [[String: Any]]).map { $0["actors"] as! Int })" }.sorted() }
        #expect(bucketRows(adHocReport) == bucketRows(report))
        // Refused as usage errors (exit 2) without repeating what was given.
        for steps in ["app_open", "app_open,made_up_event_x", "app_open[start_type=made_up_value_x],onboarding_viewed", "app_open[screen_name=x],onboarding_viewed"] {
            let refused = try CommandRunner.run(["funnel", "--steps", steps, "--db", db])
            #expect(refused.status == 2, "\(steps)")
            #expect(!refused.stderr.contains("made_up") && !refused.stderr.contains("screen_name=x"), "\(refused.stderr)")
        }
        #expect(try CommandRunner.run(["funnel", "F0", "--steps", "app_open,onboarding_viewed", "--db", db]).status == 2)

        let kpi = try CommandRunner.run(["kpi", "activation_rate_7d", "--db", db, "--format", "json"])
        let value = try JSONSerialization.jsonObject(with: Data(kpi.stdout.utf8)) as! [String: Any]
        let numerator = value["numerator"] as! Int, denominator = value["denominator"] as! Int
        // The value is printed as decimal text; Foundation's JSON reader may differ from it in the
        // last bit, so compare to within a rounding error.
        #expect(denominator > 0 && abs((value["value"] as! Double) - Double(numerator) / Double(denominator)) < 1e-12)
        #expect(value["left_out"] is Int, "cohort KPIs report how many members were left out")
        let all = try CommandRunner.run(["kpi", "--all", "--db", db, "--from", "2026-03-01", "--to", "2026-03-15"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.split(separator: "\n").count >= RepositoryCatalog.catalog.kpis.count + 1)
    }

    @Test("sql prints SQL for every dialect, and DDL; bad requests are usage errors (exit 2)")
    func sqlCommand() throws {
        for dialect in ["sqlite", "postgres", "duckdb", "clickhouse", "spark", "bigquery"] {
            let funnel = try CommandRunner.run(["sql", "funnel", "F3", "--dialect", dialect, "--from", "2026-03-01", "--to", "2026-04-01"])
            #expect(funnel.status == 0 && funnel.stdout.hasPrefix("WITH"), "\(dialect): \(funnel.stderr)")
            #expect(funnel.stdout.contains("1772323200000") && funnel.stdout.contains("'paywall_viewed'"))
            let kpi = try CommandRunner.run(["sql", "kpi", "retention_d7", "--dialect", dialect])
            #expect(kpi.status == 0, "\(dialect): \(kpi.stderr)")
            let ddl = try CommandRunner.run(["sql", "ddl", "--dialect", dialect])
            #expect(ddl.stdout.hasPrefix("CREATE TABLE events ("))
        }
        for arguments in [["sql", "funnel", "F9", "--dialect", "sqlite"], ["sql", "funnel", "F0", "--dialect", "oracle"],
                          ["sql", "funnel", "F0", "--dialect", "sqlite", "--breakdown", "install_id"],
                          ["sql", "funnel", "F0", "--dialect", "sqlite", "--from", "2026-03-02", "--to", "2026-03-01"],
                          ["sql", "funnel", "F0", "--dialect", "sqlite", "--window", "7days"],
                          ["sql", "kpi", "practice_retention", "--dialect", "sqlite", "--from", "2026-03-01", "--to", "2026-03-05"]] {
            let result = try CommandRunner.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
        }
    }

    @Test("sql batch answers each request line with exactly what the single command prints, a bad request with its error, in order")
    func sqlBatch() throws {
        let requests = [["funnel", "F3", "--dialect", "duckdb", "--from", "2026-03-01", "--to", "2026-04-01"],
                        ["kpi", "--all", "--dialect", "postgres"],
                        ["funnel", "F9", "--dialect", "sqlite"],
                        ["panel", "launch_health", "crash_free_sessions", "--dialect", "clickhouse"],
                        ["ddl", "--dialect", "spark"],
                        ["batch"]]
        let input = try requests.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }.joined(separator: "\n") + "\n\n"
        let batch = try CommandRunner.run(["sql", "batch"], stdin: Data(input.utf8))
        #expect(batch.status == 0, "\(batch.stderr)")
        let answers = try batch.stdout.split(separator: "\n").map { try JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
        try #require(answers.count == requests.count)
        for (request, answer) in zip(requests, answers) where request[0] != "batch" {
            let single = try CommandRunner.run(["sql"] + request)
            if single.status == 0 {
                #expect(answer == ["sql": single.stdout], "\(request)")
            } else {
                #expect(answer["error"].map { single.stderr.contains($0) } == true, "\(request): \(answer)")
            }
        }
        #expect(answers[2]["error"]?.contains("no funnel F9") == true)
        #expect(answers[5]["error"]?.contains("each request names one of") == true)

        let unreadable = try CommandRunner.run(["sql", "batch"], stdin: Data("{\"funnel\": 1}\n".utf8))
        #expect(unreadable.status == 2 && unreadable.stderr.contains("line 1 is not a JSON array of strings"))
    }
}

import Foundation
import HandzSQLite
import HandzSynthetic
import HandzTestSupport
import Testing

/// `handz-analytics simulate --faults` and `qa` as a user runs them: files, the store, exit codes.
@Suite(.serialized) struct QACommandTests {
    @Test("qa passes a clean simulated file (exit 0) and fails a faulty one (exit 1) in every format")
    func fileInput() throws {
        let directory = try temporaryDirectory("qa-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clean = directory.appendingPathComponent("clean.ndjson").path
        let faulty = directory.appendingPathComponent("faulty.ndjson").path
        #expect(try CommandRunner.run(["simulate", "--installs", "300", "--days", "42", "--seed", "7", "--out", clean]).status == 0)
        let simulated = try CommandRunner.run(["simulate", "--installs", "300", "--days", "42", "--seed", "7", "--out", faulty, "--faults", "missing_gate_result"])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(simulated.stdout.utf8)) as? [String: Any])
        let site = try #require((summary["faults"] as? [[String: Any]])?.first)
        #expect(site["rule"] as? String == "gates.attempt_then_result")

        let passed = try CommandRunner.run(["qa", clean])
        #expect(passed.status == 0, "\(passed.stdout)")
        #expect(passed.stdout.split(separator: "\n").last?.hasPrefix("qa: passed — 24 rules, 0 failed") == true)
        for format in ["text", "json", "junit"] {
            let failed = try CommandRunner.run(["qa", faulty, "--format", format])
            #expect(failed.status == 1, "\(format)")
            #expect(failed.stdout.contains("gates.attempt_then_result") && failed.stdout.contains(site["install_id"] as! String))
            #expect(failed.stdout.contains((site["event_ids"] as! [String])[0]))
        }
    }

    @Test("qa --db reads the store: events sent after opt-out are refused by import, quarantined, and reported by exactly the opt-out rule")
    func storeInput() throws {
        let directory = try temporaryDirectory("qa-db")
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = directory.appendingPathComponent("events.ndjson").path
        let db = directory.appendingPathComponent("events.sqlite").path
        #expect(try CommandRunner.run(["simulate", "--installs", "300", "--days", "42", "--seed", "7", "--out", events, "--faults", "events_after_opt_out"]).status == 0)
        let imported = try CommandRunner.run(["import", "--db", db, events])
        #expect(imported.status == 1 && imported.stdout.contains("\"opted_out\""), "the store refuses opted-out events: \(imported.stdout)")
        let report = try CommandRunner.run(["qa", "--db", db, "--format", "json"])
        #expect(report.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        let failed = (object["rules"] as! [[String: Any]]).filter { $0["passed"] as? Bool == false }.map { $0["id"] as! String }
        #expect(failed == ["opt_out.silence"])
        #expect((object["quarantined"] as? Int ?? 0) > 0)
    }

    @Test("the report does not depend on the order the events come in: a file and the same lines reversed give the same violations, even cut by --max-violations")
    func orderIndependence() throws {
        let directory = try temporaryDirectory("qa-order")
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = directory.appendingPathComponent("events.ndjson")
        let reversed = directory.appendingPathComponent("reversed.ndjson")
        #expect(try CommandRunner.run(["simulate", "--installs", "150", "--days", "14", "--seed", "9", "--out", events.path, "--faults", "missing_gate_result"]).status == 0)
        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n")
        try (lines.reversed().joined(separator: "\n") + "\n").write(to: reversed, atomically: true, encoding: .utf8)
        let rules = try Self.strictRules(in: directory)
        let forward = try CommandRunner.run(["qa", events.path, "--format", "json", "--max-violations", "2", "--rules", rules])
        let backward = try CommandRunner.run(["qa", reversed.path, "--format", "json", "--max-violations", "2", "--rules", rules])
        #expect(forward.status == 1, "\(forward.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(forward.stdout.utf8)) as? [String: Any])
        let rule = try #require((object["rules"] as? [[String: Any]])?.first)
        #expect((rule["violations_total"] as? Int ?? 0) > 2, "more violations than shown: \(rule["violations_total"] ?? "none")")
        #expect(forward.stdout == backward.stdout)
    }

    /// A rules directory with one rule most sessions break (an app_open followed by a signup
    /// within a second), so a report has far more violations than it shows.
    static func strictRules(in directory: URL) throws -> String {
        let rules = directory.appendingPathComponent("strict-rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try """
            spec: "CH33 §8.2"
            rules:
              strict.open_then_signup:
                spec: "CH33 §8.2 Cold start"
                title: "every app_open is followed by signup_success within 1 s (most are not)"
                kind: followed_by
                event: app_open
                then: [signup_success]
                within: 1s
                scope: session
            """.write(to: rules.appendingPathComponent("strict.yaml"), atomically: true, encoding: .utf8)
        return rules.path
    }

    @Test("qa --db on the column store gives the SQLite path's report, violations and event references included; --via columns refuses a store it does not hold")
    func columnStoreInput() throws {
        let directory = try temporaryDirectory("qa-columns")
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = directory.appendingPathComponent("events.ndjson").path
        let db = directory.appendingPathComponent("events.sqlite").path
        #expect(try CommandRunner.run(["simulate", "--installs", "200", "--days", "21", "--seed", "8", "--out", events, "--faults", "missing_gate_result"]).status == 0)
        // The SQLite log, so that `--via sqlite` has the events to read (a segment store refuses it).
        #expect(try CommandRunner.run(["import", "--db", db, "--engine", "sqlite", events]).status == 0)
        let columns = try CommandRunner.run(["qa", "--db", db, "--format", "json", "--via", "columns"])
        let sqlite = try CommandRunner.run(["qa", "--db", db, "--format", "json", "--via", "sqlite"])
        #expect(columns.status == 1 && sqlite.status == 1, "the fault is found: \(columns.stderr)")
        #expect(columns.stdout == sqlite.stdout)
        // Many violations, a few shown: the same few (the engines read the events in different orders).
        let rules = try Self.strictRules(in: directory)
        let strictColumns = try CommandRunner.run(["qa", "--db", db, "--format", "json", "--via", "columns", "--max-violations", "3", "--rules", rules])
        #expect(strictColumns.status == 1)
        #expect(strictColumns.stdout == (try CommandRunner.run(["qa", "--db", db, "--format", "json", "--via", "sqlite", "--max-violations", "3", "--rules", rules])).stdout)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(columns.stdout.utf8)) as? [String: Any])
        let failed = (object["rules"] as! [[String: Any]]).filter { $0["passed"] as? Bool == false }.map { $0["id"] as! String }
        #expect(failed == ["gates.attempt_then_result"])

        // An event stored after the seal: the column store is no longer current.
        let database = try SQLiteDatabase(path: db)
        try database.execute("INSERT INTO events SELECT randomblob(16), event_name, event_time_ms, received_time_ms, install_id, session_id, user_id, user_state, app_version, build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties FROM events LIMIT 1")
        let stale = try CommandRunner.run(["qa", "--db", db, "--via", "columns"])
        #expect(stale.status != 0 && stale.stderr.contains("not current"))
    }

    @Test("usage errors exit 2: no input, an unknown fault, a broken --rules directory (reported at file:line)")
    func usageErrors() throws {
        let directory = try temporaryDirectory("qa-usage")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try CommandRunner.run(["qa"]).status == 2)
        let out = directory.appendingPathComponent("x.ndjson").path
        #expect(try CommandRunner.run(["simulate", "--installs", "1", "--days", "1", "--out", out, "--faults", "double_tap"]).status == 2)
        let rules = directory.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try "rules:\n  r.x:\n    spec: \"CH33 §13\"\n    title: t\n    kind: followed_by\n    event: app_opend\n    then: [screen_viewed]\n    within: 1s\n    scope: session\n"
            .write(to: rules.appendingPathComponent("mine.yaml"), atomically: true, encoding: .utf8)
        try "{}\n".write(toFile: out, atomically: true, encoding: .utf8)
        let broken = try CommandRunner.run(["qa", out, "--rules", rules.path])
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("mine.yaml:6: error: rule r.x: app_opend is not a catalogued event"), "\(broken.stderr)")
    }

    @Test("a custom --rules directory runs only its rules")
    func customRules() throws {
        let directory = try temporaryDirectory("qa-custom")
        defer { try? FileManager.default.removeItem(at: directory) }
        let rules = directory.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try "rules:\n  only.catalogued:\n    spec: \"CH33 §13 Event allowlist\"\n    title: t\n    kind: catalogued\n"
            .write(to: rules.appendingPathComponent("one.yaml"), atomically: true, encoding: .utf8)
        let events = directory.appendingPathComponent("e.ndjson").path
        #expect(try CommandRunner.run(["simulate", "--installs", "20", "--days", "3", "--out", events]).status == 0)
        let result = try CommandRunner.run(["qa", events, "--rules", rules.path])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("qa: passed — 1 rules, 0 failed"))
    }
}

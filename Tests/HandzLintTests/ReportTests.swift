import Foundation
import HandzLint
import HandzTestSupport
import Testing

/// How findings leave the lint: compiler-style lines, JSON, SARIF, and `lint status`.
@Suite struct ReportTests {
    func report() -> LintReport {
        var report = LintReport()
        let result = standardLinter.lint(source: """
            track("app_opn", properties: [:])
            track("purchase_started", properties: [:])
            track(ScreenViewed(screenName: "home/demo"))
            print("x")
            """, path: "App/Screen.swift")
        report.diagnostics = result.diagnostics
        report.emissions = result.emissions
        report.fileCount = 1
        return report
    }

    @Test("xcode format: path:line:column: severity: [rule] message (spec); fix: hint")
    func xcodeLines() {
        let lines = LintOutputFormat.xcode.render(report()).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first == "App/Screen.swift:1:7: error: [unknown_event] 'app_opn' is not a catalogued event (CH33 §6); fix: use an event from catalog/events/, or add the event to the catalog first")
        #expect(lines.last?.hasPrefix("App/Screen.swift:4:1: warning: [random_logging] ") == true)
    }

    @Test("json and sarif formats carry every diagnostic with its rule and place")
    func machineFormats() throws {
        let json = try JSONSerialization.jsonObject(with: Data(LintOutputFormat.json.render(report()).utf8)) as! [String: Any]
        #expect(json["errors"] as? Int == 2)
        #expect(json["warnings"] as? Int == 1)
        let first = (json["diagnostics"] as! [[String: Any]])[0]
        #expect(first["rule"] as? String == "unknown_event")
        #expect(first["line"] as? Int == 1)

        let sarif = try JSONSerialization.jsonObject(with: Data(LintOutputFormat.sarif.render(report()).utf8)) as! [String: Any]
        #expect(sarif["version"] as? String == "2.1.0")
        let run = (sarif["runs"] as! [[String: Any]])[0]
        let rules = ((run["tool"] as! [String: Any])["driver"] as! [String: Any])["rules"] as! [[String: Any]]
        #expect(rules.map { $0["id"] as! String } == LintRule.allCases.map(\.id))
        let results = run["results"] as! [[String: Any]]
        #expect(results.map { $0["ruleId"] as! String } == ["unknown_event", "event_disabled", "random_logging"])
        #expect(results.map { $0["level"] as! String } == ["error", "error", "warning"])
    }

    @Test("status lists enabled events never emitted and placeholders emitted, with their place")
    func status() {
        let status = EmissionStatus(catalog: RepositoryCatalog.catalog, emissions: report().emissions)
        let enabled = RepositoryCatalog.catalog.events.filter(\.isEnabled).map(\.name)
        #expect(status.neverEmitted == enabled.filter { $0 != "screen_viewed" })
        #expect(status.emittedPlaceholders == [EventEmission(event: "purchase_started", location: SourcePosition(path: "App/Screen.swift", line: 2, column: 7))])
        #expect(!status.isInSync)
        #expect(status.text.contains("  App/Screen.swift:2:7: purchase_started"))
    }

    @Test("status is in sync when every enabled event is emitted and no placeholder is")
    func inSync() {
        let emissions = RepositoryCatalog.catalog.events.filter(\.isEnabled).map {
            EventEmission(event: $0.name, location: SourcePosition(path: "A.swift", line: 1, column: 1))
        }
        let status = EmissionStatus(catalog: RepositoryCatalog.catalog, emissions: emissions)
        #expect(status.isInSync)
        #expect(status.text == "catalogued events never emitted: 0\nplaceholder events emitted: 0")
    }

    @Test("every rule has an id, a spec section and a fix hint; all but random_logging are errors by default")
    func ruleTable() {
        for rule in LintRule.allCases {
            #expect(rule.specReference.hasPrefix("CH33 §"))
            #expect(!rule.hint.isEmpty && !rule.summary.isEmpty)
            #expect(rule.defaultSeverity == (rule == .randomLogging ? .warning : .error))
        }
    }
}

/// The rule table of the HandzLint docs ("Lint rules") is what developers read when a build fails:
/// it must match the code.
@Suite struct RuleDocumentationTests {
    @Test("the lint rules article lists every rule with its default severity and fix hint")
    func documentedRuleTable() throws {
        let article = try String(contentsOf: RepositoryCatalog.root.appendingPathComponent("Sources/HandzLint/HandzLint.docc/LintRules.md"), encoding: .utf8)
        for rule in LintRule.allCases {
            // Rows carry the id, then the default severity.
            let row = article.split(separator: "\n").first { $0.hasPrefix("| `\(rule.id)` | \(rule.defaultSeverity.rawValue) |") }
            #expect(row?.contains("| \(rule.hint)") == true, "\(rule.id)")
        }
    }
}

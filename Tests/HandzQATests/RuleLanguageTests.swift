import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzQA
import HandzTestSupport
import Testing

/// The rule language: what the loader accepts, and every mistake reported at its file and line.
@Suite struct RuleLanguageTests {
    /// Reads one rule file's text; returns the rules and the problems as `file:line: error: …`.
    static func read(_ yaml: String) throws -> (QARuleSet, [String]) {
        let directory = try temporaryDirectory("qa-rules")
        defer { try? FileManager.default.removeItem(at: directory) }
        try yaml.write(to: directory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        let (rules, problems) = QARuleLoader.read(directory: directory.path, prefix: "qa/", catalog: RepositoryCatalog.catalog)
        return (rules, problems.map(\.description))
    }

    @Test("a well-formed rule of every kind loads into its model")
    func wellFormed() throws {
        let (rules, problems) = try Self.read("""
        rules:
          a.once:
            spec: "CH33 §8.2 Cold start"
            title: "t"
            kind: exactly_once_per
            event: app_open
            scope: session
            reset_after: [app_background]
          a.follow:
            spec: "CH33 §8.2 Share link"
            title: "t"
            kind: followed_by
            event: share_link_opened
            then: [import_received, {events: [gate_attempt], where: {gate_name: free_inbox_cap}}]
            within: 10s
            scope: session
            same: [share_link_id]
          a.decrement:
            spec: "CH33 §8.2 Credits"
            title: "t"
            kind: decrement
            event: practice_credit_spent
            property: credits_remaining_after
            reset: practice_credit_refreshed
            reset_property: credits_total_after
            scope: install
        """)
        #expect(problems == [])
        #expect(rules.rules.map(\.id) == ["a.once", "a.follow", "a.decrement"])
        #expect(rules.rules[0].kind == .exactlyOncePer(event: EventPattern(events: ["app_open"]), scope: .session, resetAfter: [EventPattern(events: ["app_background"])]))
        #expect(rules.rules[1].kind == .followedBy(event: EventPattern(events: ["share_link_opened"]),
                                                   then: [EventPattern(events: ["import_received"]),
                                                          EventPattern(events: ["gate_attempt"], filters: [PropertyFilter(property: "gate_name", values: ["free_inbox_cap"])])],
                                                   withinMs: 10_000, scope: .session, same: ["share_link_id"]))
        #expect(rules.rules[2].kind == .decrement(event: EventPattern(events: ["practice_credit_spent"]), property: "credits_remaining_after", by: 1,
                                                  resetEvent: EventPattern(events: ["practice_credit_refreshed"]), resetProperty: "credits_total_after", scope: .install))
    }

    @Test("mistakes are errors at their file and line", arguments: [
        ("kind: sometimes", "qa/rules.yaml:5: error: rule r.x: unknown kind 'sometimes'"),
        ("kind: followed_by\n    event: app_opened\n    then: [screen_viewed]\n    within: 10s\n    scope: session", "qa/rules.yaml:6: error: rule r.x: app_opened is not a catalogued event"),
        ("kind: followed_by\n    event: {events: [gate_result], where: {result: [maybe]}}\n    then: [screen_viewed]\n    within: 10s\n    scope: session",
         "qa/rules.yaml:6: error: rule r.x: 'maybe' is not a value of result on gate_result"),
        ("kind: followed_by\n    event: {events: [app_open], where: {paywall_id: [practice]}}\n    then: [screen_viewed]\n    within: 10s\n    scope: session",
         "qa/rules.yaml:6: error: rule r.x: event app_open does not carry paywall_id"),
        ("kind: followed_by\n    event: app_open\n    then: [screen_viewed]\n    within: soon\n    scope: session", "qa/rules.yaml:8: error: rule r.x: a duration is a positive number"),
        ("kind: followed_by\n    event: app_open\n    then: [screen_viewed]\n    within: 10s\n    scope: forever", "qa/rules.yaml:9: error: rule r.x: scope must be session or install"),
        ("kind: followed_by\n    event: app_open\n    then: [screen_viewed]\n    scope: session", "qa/rules.yaml:3: error: rule r.x (followed_by) needs within"),
        ("kind: followed_by\n    event: app_open\n    then: [screen_viewed]\n    within: 10s\n    scope: session\n    same: [share_link_id]", "qa/rules.yaml:10: error: rule r.x: app_open does not carry share_link_id"),
        ("kind: chain\n    event: screen_viewed\n    property: previous_screen_nam\n    equals_previous: screen_name\n    scope: session", "qa/rules.yaml:7: error: rule r.x: screen_viewed does not carry previous_screen_nam"),
        ("kind: silence_while\n    property: user_state\n    equals: false\n    scope: install", "qa/rules.yaml:6: error: rule r.x: silence_while reads an envelope boolean"),
        ("kind: decrement\n    event: practice_credit_spent\n    property: credit_type\n    scope: install", "qa/rules.yaml:7: error: rule r.x: practice_credit_spent does not carry credit_type as an integer"),
        ("kind: funnel_completeness\n    funnels: [F9]", "qa/rules.yaml:6: error: rule r.x: funnel F9 is not defined"),
        ("kind: followed_by\n    event: gate_shown\n    then: [screen_viewed]\n    within: 10s\n    scope: session", "qa/rules.yaml:6: error: rule r.x: gate_shown is a disabled placeholder"),
        ("kind: catalogued\n    colour: blue", "qa/rules.yaml:6: error: rule r.x: unknown key 'colour'"),
    ])
    func mistakes(_ body: String, _ expected: String) throws {
        let (rules, problems) = try Self.read("rules:\n  r.x:\n    spec: \"CH33 §8.2 Cold start\"\n    title: \"t\"\n    \(body)\n")
        #expect(problems.contains { $0.hasPrefix(expected) }, "\(problems)")
        if !expected.contains("unknown key") { #expect(rules.rules.isEmpty) }
    }

    @Test("YAML syntax errors, duplicate rule ids and rules without a spec are reported with their lines")
    func fileLevelMistakes() throws {
        let (_, syntax) = try Self.read("rules:\n  r.x: [unclosed\n")
        #expect(syntax.first?.hasPrefix("qa/rules.yaml:") == true && syntax.first?.contains("YAML syntax") == true)
        let (_, duplicate) = try Self.read("rules:\n  r.x:\n    spec: \"CH33 §13\"\n    title: t\n    kind: catalogued\n  r.x:\n    spec: \"CH33 §13\"\n    title: t\n    kind: catalogued\n")
        #expect(duplicate.contains { $0.contains("duplicate key 'r.x'") || $0.contains("defined twice") }, "\(duplicate)")
        let (_, unsourced) = try Self.read("rules:\n  r.x:\n    spec: \"somewhere\"\n    title: t\n    kind: catalogued\n")
        #expect(unsourced == ["qa/rules.yaml:3: error: rule r.x: spec must name the section it comes from (CH33 §8.2 …)"])
    }

    @Test("catalog lint fails when a checklist bullet is neither a rule nor an unchecked item")
    func checklistCoverage() throws {
        var loaded = try CatalogLoader.load(directory: RepositoryCatalog.directory)
        #expect(CatalogLinter.lint(loaded).filter { $0.severity == .error } == [])
        loaded.qaRules.rules.removeAll { $0.spec.contains("§8.2 Credits") }
        loaded.qaRules.unchecked.removeAll { $0.spec.contains("§8.2 Credits") }
        let errors = CatalogLinter.lint(loaded).filter { $0.severity == .error }.map(\.message)
        #expect(errors == ["CH33 §8.2 Credits is neither a QA rule nor an unchecked item with its reason"])
    }
}

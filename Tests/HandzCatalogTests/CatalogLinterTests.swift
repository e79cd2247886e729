import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzTestSupport
import Testing

/// The linter catches each kind of catalog mistake, at the right file and line. Each test copies
/// the shipped catalog to a temporary directory and breaks one thing.
@Suite struct CatalogLinterTests {
    /// A copy of the shipped catalog with `edit` applied to one file's text.
    func brokenCatalog(_ file: String, _ edit: (String) -> String) throws -> (LoadedCatalog, [CatalogProblem]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handz-catalog-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: RepositoryCatalog.directory, toPath: directory.path)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(file)
        try edit(String(contentsOf: url, encoding: .utf8)).write(to: url, atomically: true, encoding: .utf8)
        let loaded = try CatalogLoader.load(directory: directory.path)
        return (loaded, (loaded.loadProblems + CatalogLinter.lint(loaded)).filter { $0.severity == .error })
    }

    func expectProblem(_ problems: [CatalogProblem], file: String, containing text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(problems.contains { $0.location.file == file && $0.message.contains(text) },
                "expected \(file): …\(text)… in \(problems.map(\.description))", sourceLocation: sourceLocation)
    }

    @Test("a free-form string property is an error")
    func freeFormString() throws {
        let (_, problems) = try brokenCatalog("properties.yaml") { $0.replacingOccurrences(of: "  demo_id: {type: string, format: slug,", with: "  demo_id: {type: string,") }
        expectProblem(problems, file: "properties.yaml", containing: "demo_id has neither an enum nor a format")
    }

    @Test("a property key with a PII token is an error")
    func piiKey() throws {
        let (_, problems) = try brokenCatalog("properties.yaml") { $0.replacingOccurrences(of: "  demo_id:", with: "  coach_email:") }
        expectProblem(problems, file: "properties.yaml", containing: "coach_email contains the PII token 'email'")
    }

    @Test("a new event must follow the naming standard; an unneeded exception is an error")
    func naming() throws {
        let (_, renamed) = try brokenCatalog("events/09_mastery.yaml") { $0.replacingOccurrences(of: "  mastery_schedule_saved:", with: "  mastery_plan_scheduled:") }
        expectProblem(renamed, file: "events/09_mastery.yaml", containing: "mastery_plan_scheduled breaks the CH33 §4 naming standard")
        let (_, stale) = try brokenCatalog("naming.yaml") { $0 + "  library_viewed: \"not needed\"\n" }
        expectProblem(stale, file: "naming.yaml", containing: "naming exception for library_viewed is not needed")
    }

    @Test("a missing §6 event is an error")
    func missingSpecEvent() throws {
        let (_, problems) = try brokenCatalog("events/01_app.yaml") { $0.replacingOccurrences(of: "  app_background:", with: "  app_backgrounded:") }
        expectProblem(problems, file: "events", containing: "event app_background is not catalogued")
    }

    @Test("crash_free_sessions needs the report's session key, and the key must be a uuid property the report carries")
    func reportedSessionKey() throws {
        let (_, noKey) = try brokenCatalog("kpis.yaml") { $0.replacingOccurrences(of: "    key: crashed_session_id\n", with: "") }
        expectProblem(noKey, file: "kpis.yaml", containing: "KPI crash_free_sessions: measure sessions_without_report needs key")
        let (_, notCarried) = try brokenCatalog("kpis.yaml") { $0.replacingOccurrences(of: "    key: crashed_session_id\n", with: "    key: flow_id\n") }
        expectProblem(notCarried, file: "kpis.yaml", containing: "KPI crash_free_sessions: event crash_reported does not carry flow_id")
        let (_, notUUID) = try brokenCatalog("kpis.yaml") { $0.replacingOccurrences(of: "    key: crashed_session_id\n", with: "    key: last_screen_name\n") }
        expectProblem(notUUID, file: "kpis.yaml", containing: "last_screen_name names a session, so it must have format uuid")
    }

    @Test("a funnel step naming an unknown event is an error")
    func funnelStep() throws {
        let (_, problems) = try brokenCatalog("funnels.yaml") { $0.replacingOccurrences(of: "      - events: [flow_draft_created]", with: "      - events: [flow_drafted]") }
        expectProblem(problems, file: "funnels.yaml", containing: "flow_drafted is not a catalogued event")
    }

    @Test("success conditions and links across people name carried properties and steps the builders implement")
    func successAndLinks() throws {
        let (loaded, clean) = try brokenCatalog("funnels.yaml") { $0 }
        #expect(clean.isEmpty)
        let f2 = try #require(loaded.catalog.funnels.first { $0.id == "F2" })
        #expect(f2.handoffIndex == 2 && f2.steps[4].link == FunnelLink(step: 4, property: "import_id"))
        #expect(f2.successCondition?.afterStep == 5 && f2.successCondition?.differs?.stepProperty == "new_flow_id")
        let (_, unlinked) = try brokenCatalog("funnels.yaml") { $0.replacingOccurrences(of: "        link: {step: 2, property: share_link_id}\n      - events: [import_received]", with: "      - events: [import_received]") }
        expectProblem(unlinked, file: "funnels.yaml", containing: "a step reached by another actor needs a link")
        let (_, uncarried) = try brokenCatalog("funnels.yaml") { $0.replacingOccurrences(of: "link: {step: 4, property: import_id}", with: "link: {step: 4, property: flow_id}") }
        expectProblem(uncarried, file: "funnels.yaml", containing: "import_saved_to_library_success does not carry flow_id")
        let (_, afterStep) = try brokenCatalog("funnels.yaml") { $0.replacingOccurrences(of: "      after_step: 1", with: "      after_step: 9") }
        expectProblem(afterStep, file: "funnels.yaml", containing: "F0 success: after_step must be a step of the funnel")
        let (_, unknown) = try brokenCatalog("funnels.yaml") { $0.replacingOccurrences(of: "      events: [practice_session_completed]", with: "      events: [practice_completed]") }
        expectProblem(unknown, file: "funnels.yaml", containing: "F3 success: practice_completed is not a catalogued event")
    }

    @Test("a duplicate event across files and a duplicate key are errors with their lines")
    func duplicates() throws {
        let (_, problems) = try brokenCatalog("events/12_abuse.yaml") { $0 + "  app_open:\n    domain: app\n" }
        expectProblem(problems, file: "events/12_abuse.yaml", containing: "event app_open is already defined at events/01_app.yaml")
        let (_, keys) = try brokenCatalog("events/01_app.yaml") { $0.replacingOccurrences(of: "      launch_source: required", with: "      launch_source: required\n      start_type: optional") }
        expectProblem(keys, file: "events/01_app.yaml", containing: "duplicate key 'start_type'")
        #expect(keys.contains { $0.location.file == "events/01_app.yaml" && $0.location.line == 10 })
    }

    @Test("an integer without a range and a narrowing outside the property's set are errors")
    func rangesAndNarrowing() throws {
        let (_, problems) = try brokenCatalog("properties.yaml") { $0.replacingOccurrences(of: "  alias_count: {type: integer, minimum: 0, maximum: 100,", with: "  alias_count: {type: integer,") }
        expectProblem(problems, file: "properties.yaml", containing: "alias_count needs both minimum and maximum")
        let (_, narrowing) = try brokenCatalog("events/03_auth.yaml") { $0.replacingOccurrences(of: "enum: [first_launch, logout, skip_signup]", with: "enum: [first_launch, logout, reinstall]") }
        expectProblem(narrowing, file: "events/03_auth.yaml", containing: "'reinstall' is not a value of entry_point")
    }

    @Test("YAML syntax errors are reported with their line, and loading checks stop a broken catalog")
    func syntax() throws {
        let (_, problems) = try brokenCatalog("envelope.yaml") { $0 + "required: [unclosed\n" }
        #expect(problems.contains { $0.location.file == "envelope.yaml" && $0.message.hasPrefix("YAML syntax") })
        #expect(throws: CatalogLoader.LoadError.self) { try CatalogLoader.loadChecked(directory: "/nonexistent") }
    }

    @Test("problems print as path:line: error: message")
    func format() {
        let problem = CatalogProblem(CatalogLocation(file: "events/01_app.yaml", line: 7), "something")
        #expect(problem.formatted(catalogDirectory: "catalog") == "catalog/events/01_app.yaml:7: error: something")
    }
}

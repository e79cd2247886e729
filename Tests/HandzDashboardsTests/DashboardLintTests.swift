import Foundation
import HandzCatalog
import HandzTestSupport
import Testing

/// `catalog lint` on dashboards: what a broken definition reports, at which line.
@Suite("Dashboard lint")
struct DashboardLintTests {
    func lint(_ files: [String: String]) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handz-dashboard-lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        let loaded = DashboardLoader.load(directory: directory.path)
        return (loaded.problems + DashboardLinter.lint(loaded, catalog: RepositoryCatalog.catalog)).map(\.description)
    }

    @Test("the repository's dashboards lint clean")
    func repositoryDashboardsAreClean() {
        let loaded = DashboardLoader.load(directory: RepositoryCatalog.root.appendingPathComponent("dashboards").path)
        let problems = loaded.problems + DashboardLinter.lint(loaded, catalog: RepositoryCatalog.catalog)
        #expect(problems.isEmpty, "\(problems)")
        #expect(loaded.dashboards.count == 6)
    }

    @Test("unknown funnels, KPIs, events and properties, placeholders and open strings are errors at their panel's line")
    func brokenPanels() throws {
        let problems = try lint(["launch_health.yaml": """
            title: Launch Health
            spec: "CH33 §7.1"
            panels:
              - id: a
                title: A
                bullet: "Crash-free sessions % (last 24h, 7d rolling)"
                chart: funnel
                funnel: F9
              - id: b
                title: B
                bullet: "App_open count, unique users, sessions"
                chart: stat
                kpi: no_such_kpi
              - id: c
                title: C
                bullet: "Error_shown by error_code (top 10)"
                chart: bars
                query: {kind: top_values, match: {events: [error_shown]}, properties: [session_id]}
              - id: d
                title: D
                bullet: "Signup_success rate and signup_failed by method/error_code"
                chart: line
                query: {kind: daily_counts, match: {events: [no_such_event]}}
              - id: e
                title: E
                bullet: "Signup_success rate and signup_failed by method/error_code"
                chart: line
                query: {kind: daily_counts, match: {events: [app_open]}, split: no_such_property}
              - id: f
                title: F
                bullet: "Perf_flow_builder_loaded: p50/p90 duration_ms, fps_bucket distribution"
                chart: histogram
                query: {kind: top_values, match: {events: [app_open]}, properties: [start_type]}
            """])
        func has(_ line: Int, _ fragment: String) -> Bool { problems.contains { $0.hasPrefix("launch_health.yaml:\(line): error:") && $0.contains(fragment) } }
        #expect(has(4, "unknown funnel F9"), "\(problems)")
        #expect(has(9, "unknown KPI no_such_kpi"), "\(problems)")
        #expect(has(14, "session_id is not a closed set"), "\(problems)")
        #expect(has(19, "no_such_event is not a catalogued event"), "\(problems)")
        #expect(has(24, "no_such_property is not a catalogued property"), "\(problems)")
        #expect(has(29, "a histogram chart cannot draw"), "\(problems)")
        // The other five dashboards are missing, and this one lacks panels for two bullets.
        #expect(problems.filter { $0.contains("is not defined") }.count == 5, "\(problems)")
    }

    @Test("a disabled placeholder event is an error, and a §7 bullet without a panel is one too")
    func placeholdersAndCoverage() throws {
        let placeholder = try #require(RepositoryCatalog.catalog.events.first { !$0.isEnabled }?.name)
        let problems = try lint(["monetization.yaml": """
            title: Monetization
            spec: "CH33 §7.6"
            panels:
              - id: a
                title: A
                bullet: "paywall_viewed by paywall_id and entry_point"
                chart: line
                query: {kind: daily_counts, match: {events: [\(placeholder)]}}
            """])
        #expect(problems.contains { $0.hasPrefix("monetization.yaml:4: error:") && $0.contains("\(placeholder) is a disabled placeholder") }, "\(problems)")
        #expect(problems.contains { $0.contains("no panel for the CH33 §7.6 bullet \"Churn (subscription_cancelled) over time\"") }, "\(problems)")
    }
}

import Foundation
import HandzAnalysis
import HandzAnalyticsCore
@testable import HandzDashboards
import HandzQuery
import HandzSQLite
import HandzTestSupport
import Testing

/// The served pages' controls on the simulated store (issue 16 §2): the breakdown and the
/// comparison with the previous period show the funnel module's own numbers.
@Suite struct ServedPageTests {
    let data = SimulatedDashboards.shared
    let week = 7 * EventQuery.dayMs

    @Test("a breakdown splits F0 into the funnel module's buckets, leaves F1 whole with a note; the comparison shows the previous week beside each step")
    func breakdownAndComparison() throws {
        let store = try data.analysis()
        let catalog = RepositoryCatalog.catalog
        let dashboard = try #require(data.dashboards.first { $0.id == "activation_onboarding" })
        let (from, to) = (SimulatedDashboards.fromMs + week, SimulatedDashboards.fromMs + 2 * week)
        let controls = PanelControls(breakdown: "start_type")
        let current = try store.dashboard(dashboard, fromMs: from, toMs: to, controls: controls)
        let previous = try store.dashboard(dashboard, fromMs: from - week, toMs: from, controls: controls)
        var site = SiteControls()
        site.compare = true
        site.panel = controls
        let html = SitePages.dashboard(current, previous: previous, all: data.dashboards, controls: site, breakdowns: SiteControls.breakdownOptions(catalog),
                                       provenance: .init(renderedAt: "now", seconds: 0, source: "test"))
        let tables = dataTables(html)
        let f0 = catalog.funnels.first { $0.id == "F0" }!
        let report = try store.funnel(FunnelQuery(funnel: f0, fromMs: from, toMs: to, breakdown: "start_type"))
        let before = try store.funnel(FunnelQuery(funnel: f0, fromMs: from - week, toMs: from))
        let buckets = try #require(report.breakdown)
        #expect(buckets.count >= 2)
        for (number, bucket) in buckets.enumerated() {
            let id = "p-f0_activation-0-bd-\(number + 1)-table"
            #expect(html.contains("<table id=\"\(id)\" class=\"data\" data-funnel=\"F0\" data-window-ms=\"604800000\" data-actor=\"install\" data-breakdown=\"\(HTML.escape(bucket.value ?? "(not set)"))\">"), "\(id)")
            let rows = try #require(tables[id], "\(id)").dropFirst()
            #expect(rows.prefix(bucket.steps.count).map { tableInteger($0[2]) } == bucket.steps.map(\.actors), "\(id)")
        }
        // Overall: this week's actors, then the previous week's, then the change.
        let overall = try #require(tables["p-f0_activation-0-table"]).dropFirst()
        #expect(overall.prefix(report.steps.count).map { tableInteger($0[2]) } == report.steps.map(\.actors))
        #expect(overall.prefix(before.steps.count).map { tableInteger($0[3]) } == before.steps.map(\.actors))
        #expect(before.steps[0].actors > 0)
        #expect(overall.first?[4] == Format.change(Double(report.steps[0].actors), Double(before.steps[0].actors), ratio: false))
        #expect(html.contains("is not broken down by start_type: step 1 of F1 does not carry it."))
        #expect(html.contains("stroke-dasharray=\"4 3\""), "a daily chart draws the previous period faded")
        #expect(html.contains("<title>Activation + Onboarding · \(Format.date(from)) – \(Format.date(to - 1))"))
    }

    @Test("with the comparison, every panel of every dashboard shows the previous period beside its figures")
    func everyPanelCompares() throws {
        let store = try data.analysis()
        let (from, to) = (SimulatedDashboards.fromMs + week, SimulatedDashboards.fromMs + 2 * week)
        var site = SiteControls()
        site.compare = true
        for dashboard in data.dashboards {
            let html = SitePages.dashboard(try store.dashboard(dashboard, fromMs: from, toMs: to), previous: try store.dashboard(dashboard, fromMs: from - week, toMs: from),
                                           all: data.dashboards, controls: site, breakdowns: [], provenance: .init(renderedAt: "now", seconds: 0, source: "test"))
            for panel in dashboard.panels {
                let section = html.components(separatedBy: "<section class=\"panel\" id=\"p-\(panel.id)\"").dropFirst().first?.components(separatedBy: "</section>").first ?? ""
                #expect(section.contains("class=\"previous\""), "\(dashboard.id)/\(panel.id) shows no previous period")
            }
        }
    }
}

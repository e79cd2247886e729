import Foundation
import HandzAnalyticsCore
@testable import HandzDashboards
import HandzQuery
import HandzTestSupport
import Testing

/// Breakdowns show the top values and "other" (issue 32 §3): the number of values is the
/// sender's to choose (`app_version`), the size of a page must not be. "Other" must stay a true
/// figure: the actors of the other values, their own conversions and medians.
@Suite struct ServedPageBreakdownTests {
    static let catalog = RepositoryCatalog.catalog
    static let window: Int64 = 3_600

    /// A funnel `app_open → onboarding_viewed` over synthetic actors: value `v01`…`vNN`; value i
    /// has `entries(i)` actors entering at 0, and its even-numbered actors j reach step 2 after
    /// `i × 1,000 + j` ms.
    static func evaluated(values: Int, limit: Int?, entries: (Int) -> Int = { $0 }) throws -> FunnelReport {
        let funnel = try AdHocFunnel.definition("app_open,onboarding_viewed", windowSeconds: window, catalog: catalog)
        var query = FunnelQuery(funnel: funnel, fromMs: 0, toMs: 86_400_000, breakdown: "app_version")
        query.breakdownLimit = limit
        var evaluator = FunnelEvaluator(query: query)
        var id: UInt8 = 0
        var idHigh: UInt8 = 0
        func nextID() -> [UInt8] {
            id &+= 1
            if id == 0 { idHigh &+= 1 }
            return [idHigh, id] + [UInt8](repeating: 0, count: 14)
        }
        for value in 1...values {
            let name = String(format: "v%02d", value)
            for actor in 0..<entries(value) {
                let who = "\(name)-\(actor)"
                evaluator.add(actor: who, timeMs: 0, eventID: nextID(), steps: 1, breakdown: name)
                if actor % 2 == 0 { evaluator.add(actor: who, timeMs: Int64(value * 1_000 + actor), eventID: nextID(), steps: 2, breakdown: name) }
            }
        }
        return evaluator.report()
    }

    @Test("a funnel keeps the 8 values with the most actors entering; \"other\" counts the other values' actors, with their own conversion and median")
    func funnelOtherIsExact() throws {
        let report = try Self.evaluated(values: 20, limit: BreakdownLimit.values)
        let whole = try Self.evaluated(values: 20, limit: nil)
        let buckets = try #require(report.breakdown)
        #expect(buckets.count == 9)
        #expect(buckets.prefix(8).map(\.value) == (13...20).map { String(format: "v%02d", $0) })
        let other = try #require(buckets.last)
        #expect(other.isOther && other.value == nil && other.otherValues == 12)
        // By hand: values 1…12 enter 1 + … + 12 = 78 actors; ⌈i/2⌉ of each convert: 42.
        #expect(other.steps.map(\.actors) == [78, 42])
        #expect(other.steps[1].conversionFromStart == 42.0 / 78.0, "actors over actors, not a mean of the values' rates")
        // The lower median of the 42 durations i × 1,000 + j (j even, j < i): position 21.
        let durations = (1...12).flatMap { i in stride(from: 0, to: i, by: 2).map { Int64(i * 1_000 + $0) } }.sorted()
        #expect(durations.count == 42)
        #expect(other.steps[1].medianMsFromPrevious == durations[20])
        // The kept values and the overall funnel are the unlimited run's.
        #expect(report.steps == whole.steps)
        #expect(Array(buckets.prefix(8)) == whole.breakdown!.filter { $0.value! >= "v13" })
        let folded = whole.breakdown!.filter { $0.value! < "v13" }
        #expect(other.steps.map(\.actors) == [folded.reduce(0) { $0 + $1.steps[0].actors }, folded.reduce(0) { $0 + $1.steps[1].actors }])
    }

    @Test("nine values are shown whole: \"other\" appears only when it would fold two or more")
    func noOtherForOneLeftOver() throws {
        let report = try Self.evaluated(values: 9, limit: BreakdownLimit.values)
        #expect(report.breakdown?.count == 9)
        #expect(report.breakdown?.contains(where: \.isOther) == false)
    }

    @Test("a dashboard's funnel broken down asks for the top values; the SQL and the CLI keep every value")
    func panelsAskForTheLimit() throws {
        let source = PanelSource(label: "F0", kind: .funnel(id: "F0", windowSeconds: nil))
        let (query, _) = try PanelQuery.resolve(source, catalog: Self.catalog, fromMs: 0, toMs: 86_400_000, controls: PanelControls(breakdown: "app_version"))
        guard case .funnel(let funnel) = query else { Issue.record("not a funnel"); return }
        #expect(funnel.breakdownLimit == BreakdownLimit.values)
        let (plain, _) = try PanelQuery.resolve(source, catalog: Self.catalog, fromMs: 0, toMs: 86_400_000)
        guard case .funnel(let whole) = plain else { Issue.record("not a funnel"); return }
        #expect(whole.breakdownLimit == nil)
    }

    @Test("the explorer draws at most nine breakdown tables whatever the number of values, \"other\" last with its figures")
    func explorerPageIsBounded() throws {
        let report = try Self.evaluated(values: 500, limit: BreakdownLimit.values, entries: { $0 % 37 + 1 })
        var controls = SiteControls()
        controls.panel.breakdown = "app_version"
        let html = SitePages.explorer(catalog: Self.catalog, controls: controls, breakdowns: ["app_version"], range: (0, 86_400_000), report: report,
                                      previous: nil, refusal: nil, provenance: nil)
        #expect(html.components(separatedBy: " data-breakdown=\"").count - 1 == 9)
        #expect(html.contains("data-breakdown=\"(other)\" data-breakdown-values=\"492\""))
        let other = try #require(report.breakdown?.last)
        let rows = try #require(dataTables(html)["p-explorer-0-bd-9-table"]).dropFirst()
        #expect(rows.map { tableInteger($0[2]) } == other.steps.map(\.actors))
        #expect(html.utf8.count < 200_000, "\(html.utf8.count) bytes")
    }

    @Test("with the comparison, a value the previous period folded into its \"other\" shows –, not 0; \"other\" is not compared")
    func previousFoldedValueIsUnknown() throws {
        // This period: v20 has the most actors; the previous period: v20 has one (folded there).
        let current = try Self.evaluated(values: 20, limit: BreakdownLimit.values)
        let previous = try Self.evaluated(values: 20, limit: BreakdownLimit.values, entries: { $0 == 20 ? 1 : $0 })
        #expect(previous.breakdown?.contains { $0.value == "v20" } == false)
        var controls = SiteControls()
        controls.panel.breakdown = "app_version"
        controls.compare = true
        let html = SitePages.explorer(catalog: Self.catalog, controls: controls, breakdowns: ["app_version"], range: (0, 86_400_000), report: current,
                                      previous: previous, refusal: nil, provenance: nil)
        let tables = dataTables(html)
        // v20 is the 8th kept value; v13 is in both periods' top values.
        let v20 = try #require(tables["p-explorer-0-bd-8-table"]).dropFirst()
        #expect(v20.allSatisfy { $0[3] == "–" && $0[4] == "–" }, "\(v20)")
        let v13 = try #require(tables["p-explorer-0-bd-1-table"]).dropFirst()
        #expect(v13.first.map { tableInteger($0[3]) } == 13)
        let other = try #require(tables["p-explorer-0-bd-9-table"]).dropFirst()
        #expect(other.allSatisfy { $0[3] == "–" })
    }

    /// A daily-counts panel split by `app_version`: `values` values over three days; value i sends
    /// i events on each day, from `i` installs.
    static func dailyPanel(values: Int, count: EventQuery.Count, weight: (Int) -> Int = { $0 }) -> PanelData {
        let query = EventQuery(kind: .dailyCounts, match: EventMatch(events: ["app_open"]), split: "app_version")
        let panel = PanelDefinition(id: "opens", title: "Opens", bullet: "", chart: .line, sources: [PanelSource(label: "opens", kind: .query(query))],
                                    unit: "events", counts: [count])
        var rows: [DailyCount] = []
        for value in 1...values {
            for day in 0..<3 {
                let events = Int64(weight(value))
                rows.append(DailyCount(day: Int64(day), series: String(format: "v%02d", value), events: events, actors: events, sessions: events))
            }
        }
        return PanelData(panel: panel, sources: [SourceData(label: "opens", result: .query(.daily(rows)))])
    }

    @Test("a daily series split by a value draws the top 8 by events and \"other\" as the exact sum of the rest; the previous period keeps this period's values")
    func dailySplitIsBounded() throws {
        var renderer = PanelRenderer(data: Self.dailyPanel(values: 30, count: .events), fromMs: 0, toMs: 3 * EventQuery.dayMs, id: "p")
        // In the previous period the order is reversed: v01 sends the most.
        renderer.previous = Self.dailyPanel(values: 30, count: .events, weight: { 31 - $0 })
        let html = renderer.html()
        let table = try #require(dataTables(html)["p-0-table"])
        let header = try #require(table.first)
        let kept = (23...30).map { String(format: "app_version = v%02d (events)", $0) }
        #expect(Array(header[1...9]) == kept + ["app_version = (other) (events)"])
        #expect(Array(header[10...18]) == (kept + ["app_version = (other) (events)"]).map { "\($0), previous period" })
        // Other: values 1…22 send 1 + … + 22 = 253 events a day; in the previous period the same
        // values send 30 + … + 9 = 429.
        for row in table.dropFirst() {
            #expect(tableInteger(row[9]) == 253 && tableInteger(row[18]) == 429, "\(row)")
            #expect(tableInteger(row[10]) == 8, "v23 in the previous period: 31 − 23")
        }
        #expect(html.contains("the events of 22 values past the top 8"))
        #expect(html.components(separatedBy: "<polyline").count - 1 <= 18)
    }

    @Test("installs split by a value are not added up into \"other\": the table says how many values it leaves out")
    func dailyDistinctCountsHaveNoOther() throws {
        let html = PanelRenderer(data: Self.dailyPanel(values: 30, count: .actors), fromMs: 0, toMs: 3 * EventQuery.dayMs, id: "p").html()
        let header = try #require(dataTables(html)["p-0-table"]?.first)
        #expect(header.count == 9)
        #expect(!html.contains("(other)"))
        #expect(html.contains("22 more values of app_version are not drawn"))
    }
}

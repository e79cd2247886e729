import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzCatalog
import HandzDashboards
import HandzQuery
import HandzTestSupport
import Testing

/// Every panel of the six CH33 §7 dashboards, rendered from a simulated dataset: the numbers in
/// each panel's data table are the ones the funnel and KPI module computes, or (for the named
/// event queries) the ones counted directly from the stored events in memory.
@Suite("Dashboards render from simulated data", .serialized)
struct DashboardRenderTests {
    let data = SimulatedDashboards.shared
    var from: Int64 { SimulatedDashboards.fromMs }
    var to: Int64 { SimulatedDashboards.toMs }

    func rendered() throws -> [(DashboardData, [String: [[String]]])] {
        let store = try data.analysis()
        return try data.dashboards.map { dashboard in
            let computed = try store.dashboard(dashboard, fromMs: from, toMs: to)
            let page = Report.pages([computed], source: "test", generatedAt: "now")[1]
            return (computed, dataTables(page.html))
        }
    }

    @Test("the six dashboards are defined and every panel has charts and a data table")
    func everyPanelRenders() throws {
        #expect(data.dashboards.map(\.id).sorted() == SpecInventory.dashboards.map(\.id).sorted())
        let store = try data.analysis()
        for dashboard in data.dashboards {
            let page = Report.pages([try store.dashboard(dashboard, fromMs: from, toMs: to)], source: "test", generatedAt: "now")[1].html
            for panel in dashboard.panels {
                let section = page.components(separatedBy: "<section class=\"panel\" id=\"p-\(panel.id)\"").dropFirst().first?.components(separatedBy: "</section>").first ?? ""
                #expect(section.contains("<svg"), "\(dashboard.id)/\(panel.id) has no chart")
                #expect(section.contains("<table"), "\(dashboard.id)/\(panel.id) has no data table")
                #expect(section.contains("<title id="), "\(dashboard.id)/\(panel.id) chart has no title")
            }
        }
    }

    @Test("funnel and KPI panels show the numbers the funnel and KPI module computes")
    func funnelsAndKPIs() throws {
        let store = try data.analysis()
        let catalog = RepositoryCatalog.catalog
        var checked = 0
        for (computed, tables) in try rendered() {
            for panel in computed.dashboard.panels {
                for source in panel.sources {
                    switch source.kind {
                    case .funnel(let id, _):
                        let report = try store.funnel(FunnelQuery(funnel: catalog.funnels.first { $0.id == id }!, fromMs: from, toMs: to))
                        let rows = try #require(tables["p-\(panel.id)-0-table"]).dropFirst()
                        // The steps, then the success row.
                        let expected = report.steps + (report.success.map { [$0] } ?? [])
                        #expect(rows.map { tableInteger($0[2]) } == expected.map(\.actors), "\(panel.id)")
                        #expect(rows.last?.first == "Success", "\(panel.id) ends with its success row")
                        #expect(report.steps[0].actors > 0 && report.steps.last!.actors > 0, "\(id) has data at every end")
                        checked += 1
                    case .kpi(let id, nil) where panel.chart == .stat:
                        let report = try store.kpi(KPIQuery(kpi: catalog.kpis.first { $0.id == id }!, fromMs: from, toMs: to))
                        let row = try #require(tables["p-\(panel.id)-table"]?.first { $0.first == report.query.kpi.title })
                        if case .median(let milliseconds, let actors) = report.rows {
                            #expect(row[1] == "\(Format.duration(milliseconds: milliseconds)) (\(Format.seconds(milliseconds: milliseconds)) s)" && tableInteger(row[3]) == actors, "\(id)")
                        } else {
                            #expect(tableInteger(row[2]) == report.numerator && tableInteger(row[3]) == report.denominator, "\(id)")
                            #expect((report.denominator ?? 0) > 0, "\(id) has a population")
                        }
                        checked += 1
                    case .kpi(let id, let property):
                        let kpi = PanelSource.kpi(catalog.kpis.first { $0.id == id }!, property: property)
                        let report = try store.kpi(KPIQuery(kpi: kpi, fromMs: from, toMs: to))
                        guard case .distribution(let buckets) = report.rows else { Issue.record("\(id) is not a distribution"); continue }
                        let rows = try #require(tables["p-\(panel.id)-0-table"]).dropFirst().dropLast()
                        #expect(rows.map { tableInteger($0[1]) } == buckets.map(\.count), "\(panel.id)")
                        #expect(buckets.count > 3, "\(panel.id) has a spread")
                        checked += 1
                    case .query(let query) where query.kind == .followedBy:
                        let report = try store.kpi(KPIQuery(kpi: query.followedByKPI(id: "check"), fromMs: from, toMs: to))
                        let row = try #require(tables["p-\(panel.id)-table"]?.first { $0.first == source.label })
                        #expect(tableInteger(row[2]) == report.numerator && tableInteger(row[3]) == report.denominator, "\(panel.id)")
                        #expect((report.denominator ?? 0) > 0, "\(panel.id) has opportunities")
                        checked += 1
                    default: continue
                    }
                }
            }
        }
        #expect(checked >= 17)
    }

    @Test("crash-free sessions per day and over 7 days are the KPI crash_free_sessions on those ranges, unknown sessions included")
    func crashFreeIsTheKPI() throws {
        let store = try data.analysis()
        let kpi = RepositoryCatalog.catalog.kpis.first { $0.id == "crash_free_sessions" }!
        let table = try #require(try rendered().flatMap { $0.1 }.first { $0.key == "p-crash_free_sessions-0-table" }?.value)
        // Per series: numerator, denominator, %, left out.
        #expect(table.first?[4] == "left out" && table.first?[8] == "left out")
        var crashed: Int64 = 0, leftOut: Int64 = 0
        for (day, row) in table.dropFirst().enumerated() {
            let dayFrom = from + Int64(day) * EventQuery.dayMs
            let daily = try store.kpi(KPIQuery(kpi: kpi, fromMs: dayFrom, toMs: dayFrom + EventQuery.dayMs))
            let rolling = try store.kpi(KPIQuery(kpi: kpi, fromMs: max(from, dayFrom - 6 * EventQuery.dayMs), toMs: dayFrom + EventQuery.dayMs))
            #expect([tableInteger(row[1]), tableInteger(row[2]), tableInteger(row[4])] == [daily.numerator, daily.denominator, daily.leftOut], "day \(day)")
            #expect([tableInteger(row[5]), tableInteger(row[6]), tableInteger(row[8])] == [rolling.numerator, rolling.denominator, rolling.leftOut], "day \(day)")
            crashed += (daily.denominator ?? 0) - (daily.numerator ?? 0)
            leftOut += daily.leftOut ?? 0
        }
        #expect(table.count == Int(SimulatedDashboards.days) + 1)
        #expect(crashed > 0 && leftOut > 0, "the simulated data has crashed and unknown sessions")
    }

    @Test("simulated crash reports name an earlier session of the same install; some come from older builds without the id")
    func simulatedCrashReports() throws {
        let reports = data.events.filter { $0.name == "crash_reported" }
        let named = reports.compactMap { report in report.text("crashed_session_id").map { (report, $0) } }
        #expect(!named.isEmpty && named.count < reports.count)
        var bySession: [String: [SimulatedDashboards.Event]] = [:]
        for event in data.events { bySession[event.session, default: []].append(event) }
        for (report, crashed) in named {
            let session = bySession[crashed] ?? []
            #expect(crashed != report.session && !session.isEmpty, "a report names another, stored session")
            #expect(session.allSatisfy { $0.install == report.install && $0.timeMs <= report.timeMs }, "the crashed session came earlier on the same install")
        }
    }

    @Test("daily counts, rates, top values and histograms match counts over the stored events")
    func eventQueriesMatchMemory() throws {
        var checked = 0
        for (computed, tables) in try rendered() {
            for panel in computed.dashboard.panels {
                for (index, source) in panel.sources.enumerated() {
                    guard case .query(let query) = source.kind else { continue }
                    let events = data.matching(query.match)
                    switch query.kind {
                    case .dailyCounts where query.split == nil && query.firstPerKey == nil:
                        let rows = try #require(tables["p-\(panel.id)-0-table"]).dropFirst()
                        for (day, row) in rows.enumerated() {
                            let today = events.filter { $0.day == Int64(day) }
                            let expected: [Int64] = panel.counts.map { count in
                                switch count {
                                case .events: Int64(today.count)
                                case .actors: Int64(Set(today.map(\.install)).count)
                                case .sessions: Int64(Set(today.map(\.session)).count)
                                }
                            }
                            #expect(row.dropFirst().prefix(panel.counts.count).map(tableInteger) == expected, "\(panel.id) day \(day)")
                        }
                        #expect(!events.isEmpty, "\(panel.id) has events")
                        checked += 1
                    case .dailyCounts where query.firstPerKey != nil:
                        let key = query.firstPerKey!
                        var first: [String: SimulatedDashboards.Event] = [:]
                        for event in data.events.sorted(by: { $0.timeMs < $1.timeMs }) where query.match.events.contains(event.name) {
                            if let value = event.text(key), first[value] == nil { first[value] = event }
                        }
                        let created = first.values.filter { $0.timeMs >= from && $0.timeMs < to }
                        let rows = try #require(tables["p-\(panel.id)-0-table"]).dropFirst()
                        #expect(tableInteger(rows.last!.last!) == Int64(created.count), "\(panel.id) cumulative")
                        checked += 1
                    case .dailyRatio:
                        let below = data.matching(query.denominator!)
                        func counted(_ list: [SimulatedDashboards.Event]) -> Int64 {
                            query.count == .actors ? Int64(Set(list.map(\.install)).count) : Int64(list.count)
                        }
                        let rows = try #require(tables["p-\(panel.id)-0-table"])
                        let total = try #require(rows.last)
                        #expect(total[0] == "Whole range")
                        #expect([tableInteger(total[1 + index * 3]), tableInteger(total[2 + index * 3])] == [counted(events), counted(below)], "\(panel.id)")
                        #expect(counted(events) > 0, "\(panel.id) has a numerator")
                        checked += 1
                    case .topValues:
                        var counts: [[String]: Int64] = [:]
                        for event in events { counts[query.properties.map { event.text($0) ?? "(not set)" }, default: 0] += 1 }
                        let rows = try #require(tables["p-\(panel.id)-\(index)-table"]).dropFirst()
                        for row in rows where !row[0].hasPrefix("other (") {
                            #expect(tableInteger(row[query.properties.count]) == counts[Array(row.prefix(query.properties.count))], "\(panel.id) \(row)")
                        }
                        #expect(rows.count == min(counts.count, panel.limit) + (counts.count > panel.limit ? 1 : 0), "\(panel.id)")
                        checked += 1
                    case .histogram:
                        let values = events.compactMap { $0.integer(query.properties[0]) }
                        let quantiles = (tables["p-\(panel.id)-\(index)-quantiles"] ?? []).dropFirst()
                        #expect(quantiles.count == query.quantiles.count, "\(panel.id)")
                        for (q, row) in zip(query.quantiles, quantiles) {
                            #expect(tableInteger(row[1]) == Quantile.lower(values, percent: q), "\(panel.id) p\(q)")
                        }
                        let buckets = try #require(tables["p-\(panel.id)-\(index)-table"]).dropFirst()
                        #expect(buckets.compactMap { tableInteger($0[1]) }.reduce(0, +) == Int64(values.count), "\(panel.id)")
                        #expect(!values.isEmpty, "\(panel.id) has values")
                        checked += 1
                    default: continue
                    }
                }
            }
        }
        #expect(checked >= 18)
    }
}

import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzDashboards
import HandzQuery
import HandzTestSupport
import Testing

@Suite("Grafana export")
struct GrafanaExportTests {
    let dashboards = DashboardLoader.load(directory: RepositoryCatalog.root.appendingPathComponent("dashboards").path).dashboards

    @Test("every dashboard exports as importable JSON: uid, title, schemaVersion, the data source input, panels with gridPos and a query each", arguments: GrafanaTimeMacros.Flavor.allCases)
    func importable(flavor: GrafanaTimeMacros.Flavor) throws {
        let exporter = GrafanaExporter(catalog: RepositoryCatalog.catalog, flavor: flavor)
        var uids: Set<String> = []
        for dashboard in dashboards {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(exporter.json(dashboard).utf8)) as? [String: Any])
            let uid = try #require(object["uid"] as? String)
            #expect(uids.insert(uid).inserted && uid.count <= 40)
            #expect((object["title"] as? String)?.contains(dashboard.title) == true)
            #expect((object["schemaVersion"] as? Int ?? 0) >= 30)
            let panels = try #require(object["panels"] as? [[String: Any]])
            #expect(panels.count == dashboard.panels.count)
            for panel in panels {
                let grid = try #require(panel["gridPos"] as? [String: Int])
                #expect(Set(grid.keys) == ["h", "w", "x", "y"])
                let targets = try #require(panel["targets"] as? [[String: Any]])
                #expect(!targets.isEmpty)
                for target in targets {
                    let sql = try #require(target["rawSql"] as? String)
                    let (from, to) = flavor == .postgres ? ("$__timeFrom()", "$__timeTo()") : ("$__fromTime_ms", "$__toTime_ms")
                    #expect(sql.contains(from) && sql.contains(to), "\(dashboard.id) \(panel["title"] ?? "")")
                    #expect(!sql.contains("3000000000000") && !sql.contains("3100000000000"))
                    #expect((target["datasource"] as? [String: String])?["uid"] == "${DS_HANDZ}")
                }
            }
        }
    }

    @Test("the macros replace exactly the range: from, to and to + window")
    func macrosReplaceTheRange() throws {
        let macros = GrafanaTimeMacros(flavor: .postgres)
        let sql = try macros.sql { from, to in "t >= \(from) AND t < \(to) AND u < \(to + 604_800_000) AND d = 86400000 AND s1 = 1" }
        #expect(sql == "t >= (\(macros.fromExpression)) AND t < (\(macros.toExpression)) AND u < (\(macros.toExpression) + 604800000) AND d = 86400000 AND s1 = 1")
    }

    @Test("a query that depends on the range's length (a weekly KPI's whole weeks) is refused, not exported with a fixed range")
    func weeklyKPIsAreRefused() throws {
        let weekly = try #require(RepositoryCatalog.catalog.kpis.first { $0.measure == .weeklyActorShare })
        let source = PanelSource(label: weekly.id, kind: .kpi(id: weekly.id, property: nil))
        #expect(throws: GrafanaTimeMacros.Unbindable.self) {
            _ = try GrafanaExporter(catalog: RepositoryCatalog.catalog, flavor: .clickhouse).statements(source, chart: .stat)
        }
    }
}

import HandzAnalysis
import HandzAnalyticsCore
import HandzQuery
import HandzTestSupport
import Testing

/// `DashboardRunner` (the panels of several dashboards on parallel read-only connections): the
/// same results, in the same order, as one connection; every panel timed once; the first failure
/// thrown.
@Suite struct DashboardRunnerTests {
    let data = SimulatedDashboards.shared

    @Test("two workers give every panel of every dashboard, in order, equal to one connection's; each panel is timed once")
    func parallelEqualsSequential() throws {
        let (from, to) = (SimulatedDashboards.fromMs, SimulatedDashboards.toMs)
        let timed = Locked<[String]>([])
        let parallel = try DashboardRunner.run(data.dashboards, path: data.path, catalog: RepositoryCatalog.catalog, fromMs: from, toMs: to, workers: 2) { dashboard, panel, seconds in
            timed.withLock { $0.append("\(dashboard.id)/\(panel.id)") }
            #expect(seconds >= 0)
        }
        let store = try data.analysis()
        #expect(parallel == (try data.dashboards.map { try store.dashboard($0, fromMs: from, toMs: to) }))
        let names = data.dashboards.flatMap { dashboard in dashboard.panels.map { "\(dashboard.id)/\($0.id)" } }
        #expect(timed.get().sorted() == names.sorted())
    }

    @Test("a panel whose query fails fails the run with that error")
    func failure() {
        let broken = DashboardDefinition(id: "broken", title: "Broken", spec: "test", panels: [
            PanelDefinition(id: "missing_funnel", title: "Missing", bullet: "none", chart: .funnel,
                            sources: [PanelSource(label: "F9", kind: .funnel(id: "F9", windowSeconds: nil))]),
        ])
        #expect(throws: QueryError.unknownDefinition("F9")) {
            try DashboardRunner.run(data.dashboards + [broken], path: data.path, catalog: RepositoryCatalog.catalog,
                                    fromMs: SimulatedDashboards.fromMs, toMs: SimulatedDashboards.toMs, workers: 2)
        }
    }
}

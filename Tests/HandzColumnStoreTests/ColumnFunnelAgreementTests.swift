import HandzAnalysis
import HandzAnalyticsCore
import HandzColumnStore
import HandzQuery
import HandzTestSupport
import Testing

/// The column engine gives the numbers of the SQLite path (the walk and the builders' SQL on the
/// log), funnel by funnel, on the simulated store (issue 33, "Proof").
@Suite struct ColumnFunnelAgreementTests {
    let data = SimulatedStore.shared
    let catalog = RepositoryCatalog.catalog

    func queries() throws -> [FunnelQuery] {
        let (from, to) = (SimulatedStore.fromMs, data.toMs)
        var queries: [FunnelQuery] = []
        for funnel in catalog.funnels {
            for breakdown in [nil, "user_state", "app_version"] {
                let query = FunnelQuery(funnel: funnel, fromMs: from, toMs: to, breakdown: breakdown)
                if ColumnFunnel.supports(query) { queries.append(query) }
            }
        }
        // Ad hoc: filters on the entry and a later step, alternatives, a narrow range, a short window.
        let adHoc = try AdHocFunnel.definition("app_open[start_type=cold],onboarding_viewed|library_viewed,flow_draft_created", windowSeconds: 7 * 86_400, catalog: catalog)
        queries.append(FunnelQuery(funnel: adHoc, fromMs: from + 3 * 86_400_000, toMs: to - 5 * 86_400_000, windowMs: 3 * 3_600_000))
        queries.append(FunnelQuery(funnel: adHoc, fromMs: from, toMs: to, breakdown: "start_type"))
        // F1 with a 60-day window and a day's: its success search lists every window under one
        // list for every day (windows far longer than a few days), and under each day it overlaps.
        let f1 = try #require(catalog.funnels.first { $0.id == "F1" })
        queries.append(FunnelQuery(funnel: f1, fromMs: from, toMs: to, windowMs: 60 * 86_400_000))
        queries.append(FunnelQuery(funnel: f1, fromMs: from + 86_400_000, toMs: to, windowMs: 86_400_000))
        return queries
    }

    @Test("every catalog funnel (F2 across people, F4 keyed) and ad-hoc funnels, with breakdowns: the column engine agrees with the SQLite walk and the SQL on the log")
    func funnelsAgree() throws {
        let store = try ColumnStore(directory: data.columnsDirectory)
        let engine = ColumnFunnel(store: store, catalog: catalog)
        let log = try StoreAnalysis(path: data.path, catalog: catalog)
        let queries = try queries()
        #expect(["F0", "F1", "F2", "F3", "F4"].allSatisfy { id in queries.contains { $0.funnel.id == id } })
        for query in queries {
            let columns = try engine.run(query)
            #expect(columns == (try log.funnel(query)), "\(query.funnel.id) \(query.breakdown ?? "-"): the walk on the log")
            #expect(columns == (try log.funnelBySQL(query)), "\(query.funnel.id) \(query.breakdown ?? "-"): the SQL on the log")
            #expect((columns.steps.first?.actors ?? 0) > 0, "\(query.funnel.id): the dataset reaches its entry")
        }
    }

    @Test("every catalog funnel per user (installs resolved to their user_id): the column engine agrees with the SQL on the log")
    func perUser() throws {
        let engine = ColumnFunnel(store: try ColumnStore(directory: data.columnsDirectory), catalog: catalog)
        let log = try StoreAnalysis(path: data.path, catalog: catalog)
        for funnel in catalog.funnels {
            let query = FunnelQuery(funnel: funnel, fromMs: SimulatedStore.fromMs, toMs: data.toMs, actor: .user)
            let columns = try engine.run(query)
            #expect(columns == (try log.funnelBySQL(query)), "\(funnel.id) per user")
        }
    }
}

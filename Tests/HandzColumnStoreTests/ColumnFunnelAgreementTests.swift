import HandzAnalysis
import HandzAnalyticsCore
@testable import HandzColumnStore
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

    @Test("strict order, with and without a breakdown, its gaps found by day and by actor: the column engine agrees with the SQL on the log")
    func strictAgrees() throws {
        let store = try ColumnStore(directory: data.columnsDirectory)
        let byDay = ColumnFunnel(store: store, catalog: catalog)
        var byActor = byDay
        byActor.dayGapsBudgetBytes = 0
        let log = try StoreAnalysis(path: data.path, catalog: catalog)
        let (from, to) = (SimulatedStore.fromMs, data.toMs)
        var queries = try queries().filter { ["F0", "F1", "F3"].contains($0.funnel.id) }
        // Steps the simulator often does back to back, so strict chains go on past the entry and
        // the events between steps decide where they stop.
        for (steps, breakdown) in [("app_open,screen_viewed", nil), ("flow_save_attempt,flow_saved_success", "user_state"),
                                   ("guest_mode_entered,flow_builder_opened|library_viewed,flow_draft_created", nil)] as [(String, String?)] {
            let funnel = try AdHocFunnel.definition(steps, windowSeconds: 86_400, catalog: catalog)
            queries.append(FunnelQuery(funnel: funnel, fromMs: from + 86_400_000, toMs: to, breakdown: breakdown))
        }
        var continued = 0
        for var query in queries {
            query.funnel.order = .strict
            let expected = try log.funnelBySQL(query)
            #expect(try byDay.run(query) == expected, "\(query.funnel.id) \(query.breakdown ?? "-"): by day")
            #expect(try byActor.run(query) == expected, "\(query.funnel.id) \(query.breakdown ?? "-"): by actor")
            let (entered, second) = (expected.steps.first?.actors ?? 0, expected.steps.dropFirst().first?.actors ?? 0)
            if second > 0 && second < entered { continued += 1 }
        }
        #expect(continued >= 2, "strict chains that go past the entry, and some that stop")
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

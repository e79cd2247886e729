import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzCatalog
import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzTestSupport
import Testing

/// Every panel of the six CH33 §7 dashboards and every KPI the column engine answers gives the
/// numbers of the SQLite path — the builders' SQL on the log — on
/// the simulated store (issue 33 §2, "Proof").
@Suite struct ColumnPanelAgreementTests {
    let data = SimulatedStore.shared
    let catalog = RepositoryCatalog.catalog
    let dashboards = DashboardLoader.load(directory: RepositoryCatalog.root.appendingPathComponent("dashboards").path).dashboards

    func engine(_ store: SimulatedStore, cache: ColumnCache? = nil) throws -> ColumnPanels {
        ColumnPanels(store: try ColumnStore(directory: store.columnsDirectory, cache: cache), catalog: catalog,
                     firstSeen: try InstallFirstSeenTimes(database: try SQLiteDatabase(path: store.path, readOnly: true)))
    }

    @Test("every panel of the six dashboards, plain, broken down and per user, sharing decoded columns as a render does: the column engine agrees with the SQL on the log")
    func panelsAgree() throws {
        let cache = ColumnCache()
        let engine = try engine(data, cache: cache)
        let log = try StoreAnalysis(path: data.path, catalog: catalog)
        #expect(dashboards.count == 6)
        var answered = 0, left = 0
        // The last two weeks, and the whole range with a breakdown (funnels and daily series).
        for (fromMs, controls) in [(data.toMs - 14 * 86_400_000, PanelControls()), (SimulatedStore.fromMs, PanelControls(breakdown: "user_state")),
                                   (SimulatedStore.fromMs, PanelControls(actor: .user, windowSeconds: 3 * 86_400))] {
            for dashboard in dashboards {
                for panel in dashboard.panels {
                    for source in panel.sources {
                        let (query, _) = try PanelQuery.resolve(source, catalog: catalog, fromMs: fromMs, toMs: data.toMs, controls: controls)
                        guard let columns = try engine.answer(query) else { left += 1; continue }
                        answered += 1
                        #expect(columns == (try log.run(query)), "\(dashboard.id)/\(panel.id)/\(source.label): the SQL on the log")
                    }
                }
            }
        }
        #expect(left == 0, "sources left to SQLite: \(left)")
        #expect(cache.bytes > 0, "the panels shared decoded columns")
        #expect(answered >= 100, "sources answered by the column engine: \(answered)")
    }

    @Test("every KPI over four ranges, per install and per user: the column engine agrees with the SQL on the log")
    func kpisAgree() throws {
        let engine = try engine(data)
        let log = try StoreAnalysis(path: data.path, catalog: catalog)
        var nonzero = 0
        for (fromMs, toMs) in [(SimulatedStore.fromMs, data.toMs), (SimulatedStore.fromMs + 3 * 86_400_000, data.toMs - 2 * 86_400_000),
                               (SimulatedStore.fromMs + 86_400_000, SimulatedStore.fromMs + 9 * 86_400_000),
                               // Off UTC midnights: crash-free sessions read row by row, not by session runs.
                               (SimulatedStore.fromMs + 5 * 3_600_000, data.toMs - 7 * 3_600_000)] {
            for kpi in catalog.kpis {
              for actor in [ActorKind.install, .user] {
                let query = KPIQuery(kpi: kpi, fromMs: fromMs, toMs: toMs, actor: actor)
                let answer = try engine.answer(.kpi(query))
                guard case .kpi(let columns)? = answer else {
                    Issue.record("\(kpi.id) is left to SQLite")
                    continue
                }
                #expect(columns == (try log.kpi(query)), "\(kpi.id) \(actor) \(fromMs)–\(toMs)")
                if (columns.numerator ?? 0) > 0 || (columns.denominator ?? 0) > 0 { nonzero += 1 }
              }
            }
        }
        #expect(nonzero >= 60, "KPIs with data: \(nonzero)")
    }
}

/// The cases the simulated store never has, on a store of its own: installs first seen before
/// their first stored `app_open` (retention or a deletion took it: in no cohort, issue 32 §6),
/// one upper-case install id among a day's lower-case ones (the validator accepts either case),
/// which makes that chunk write its install column as text, and one user signed in on five
/// installs (per user, they are one actor).
@Suite struct ColumnEngineEdgeCaseTests {
    let catalog = RepositoryCatalog.catalog
    let dashboards = DashboardLoader.load(directory: RepositoryCatalog.root.appendingPathComponent("dashboards").path).dashboards

    /// The store after both changes, resealed.
    static let edited: SimulatedStore = {
        let store = try! SimulatedStore(installs: 90, days: 14, seed: 71)
        let database = try! SQLiteDatabase(path: store.path)
        try! database.execute("""
            INSERT OR IGNORE INTO install_first_seen (install_id, first_app_open_ms, last_received_ms)
            SELECT install_id, MIN(event_time_ms), MAX(received_time_ms) FROM events WHERE event_name = 'app_open' GROUP BY install_id;
            DELETE FROM events WHERE rowid IN (
              SELECT rowid FROM (SELECT rowid, ROW_NUMBER() OVER (PARTITION BY install_id ORDER BY event_time_ms) AS r FROM events WHERE event_name = 'app_open')
              WHERE r = 1 LIMIT 12);
            UPDATE events SET user_id = (SELECT user_id FROM events WHERE user_id IS NOT NULL ORDER BY rowid LIMIT 1)
              WHERE user_id IS NOT NULL AND install_id IN (SELECT DISTINCT install_id FROM events WHERE user_id IS NOT NULL ORDER BY install_id LIMIT 5);
            UPDATE events SET install_id = upper(install_id) WHERE rowid = (
              SELECT rowid FROM events WHERE event_name = 'app_open' AND event_time_ms >= \(SimulatedStore.fromMs + 5 * 86_400_000) ORDER BY event_time_ms LIMIT 1);
            """)
        try! store.seal()
        removeAtExit(store.directory)
        return store
    }()

    @Test("the edited store's chunks hold a text install column and its table installs first seen before their first app_open")
    func theCasesAreThere() throws {
        let data = Self.edited
        let store = try ColumnStore(directory: data.columnsDirectory)
        let mixed = try store.manifest.chunks.filter { try store.chunk($0).entry("install_id")?.type == .string }
        #expect(mixed.count == 1, "chunks with an upper-case install id")
        let database = try SQLiteDatabase(path: data.path, readOnly: true)
        let earlier = try database.prepare("""
            SELECT COUNT(*) FROM install_first_seen f WHERE f.first_app_open_ms < (SELECT MIN(event_time_ms) FROM events e WHERE e.install_id = f.install_id AND e.event_name = 'app_open')
            """).query { $0.int64(0) }
        #expect((earlier.first ?? 0) >= 8, "installs first seen before their first stored app_open: \(earlier)")
    }

    @Test("KPIs, panels and funnels on the edited store: the column engine agrees with the SQL on the log")
    func engineAgrees() throws {
        let data = Self.edited
        let engine = ColumnPanels(store: try ColumnStore(directory: data.columnsDirectory), catalog: catalog,
                                  firstSeen: try InstallFirstSeenTimes(database: try SQLiteDatabase(path: data.path, readOnly: true)))
        let log = try StoreAnalysis(path: data.path, catalog: catalog)
        for kpi in catalog.kpis {
            for actor in [ActorKind.install, .user] {
                let query = KPIQuery(kpi: kpi, fromMs: SimulatedStore.fromMs, toMs: data.toMs, actor: actor)
                if case .kpi(let columns)? = try engine.answer(.kpi(query)) { #expect(columns == (try log.kpi(query)), "\(kpi.id) \(actor)") }
            }
        }
        var merged = 0
        for dashboard in dashboards {
            for panel in dashboard.panels {
                for source in panel.sources {
                    for actor in [ActorKind.install, .user] {
                        let (query, _) = try PanelQuery.resolve(source, catalog: catalog, fromMs: SimulatedStore.fromMs, toMs: data.toMs, controls: PanelControls(actor: actor))
                        let columns = try #require(try engine.answer(query))
                        #expect(columns == (try log.run(query)), "\(dashboard.id)/\(panel.id)/\(source.label) \(actor)")
                        if actor == .user, case .funnel(let perUser) = columns,
                           case .funnel(let perInstall)? = try engine.answer(try PanelQuery.resolve(source, catalog: catalog, fromMs: SimulatedStore.fromMs, toMs: data.toMs).query),
                           perUser.steps.first?.actors != perInstall.steps.first?.actors { merged += 1 }
                    }
                }
            }
        }
        #expect(merged > 0, "per user, the five installs are one actor in some funnel")
    }
}

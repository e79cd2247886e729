import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzQuery
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Issue 15's proof that moving the queries onto the analytical layer changed no number: on the
/// simulated dataset (400 installs × 21 days through the ingestion path), every funnel (walk and
/// SQL, per install and per user, with a breakdown), every KPI and every panel of the six
/// dashboards give the same result from the layer as the builders' SQL on the log's rows.
@Suite struct AnalyticalLayerAgreementTests {
    let data = SimulatedDashboards.shared
    let catalog = RepositoryCatalog.catalog

    @Test("every funnel and KPI: the analytical layer gives the numbers of the log")
    func funnelsAndKPIs() throws {
        let layer = try StoreAnalysis(path: data.path, catalog: catalog)
        #expect(layer.source == .analyticalLayer, "the shared store's layer has caught up")
        let log = try StoreAnalysis(path: data.path, catalog: catalog, source: .log)
        let (from, to) = (SimulatedDashboards.fromMs, SimulatedDashboards.toMs)
        for funnel in catalog.funnels {
            for actor in [ActorKind.install, .user] {
                let query = FunnelQuery(funnel: funnel, fromMs: from, toMs: to, actor: actor, breakdown: funnel.handoffIndex == nil ? "user_state" : nil)
                let expected = try log.funnel(query)
                #expect(try layer.funnel(query) == expected, "\(funnel.id) per \(actor): walk on the layer")
                #expect(try layer.funnelBySQL(query) == expected, "\(funnel.id) per \(actor): SQL on the layer")
            }
        }
        for kpi in catalog.kpis {
            let query = KPIQuery(kpi: kpi, fromMs: from, toMs: to)
            #expect(try layer.kpi(query) == log.kpi(query), "\(kpi.id)")
        }
    }

    @Test("the queries read the layer, not the log: with the log's rows removed behind the layer's back, only the log source sees nothing")
    func queriesReadTheLayer() throws {
        // Without this the two sources could agree because both read the log (they once did:
        // `PRAGMA temp_store` set after the view was made dropped it, and `events` fell back to
        // the log's table).
        let directory = try temporaryDirectory("handz-layer-read")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("copy.sqlite").path
        let source = try SQLiteDatabase(path: data.path, readOnly: true)
        try source.execute("VACUUM INTO '\(path)'")
        try SQLiteEventStore.prepareForQueries(path: path)
        // The log emptied by hand, the layer and its watermark untouched, then one row appended
        // that a writer's catch-up folds (the bug this guards showed after a fold).
        let raw = try SQLiteDatabase(path: path)
        try raw.execute("""
            PRAGMA secure_delete = OFF;
            CREATE TEMP TABLE keep AS SELECT * FROM events ORDER BY rowid DESC LIMIT 1;
            DELETE FROM events;
            INSERT INTO events SELECT * FROM keep;
            UPDATE events SET rowid = (SELECT value FROM analytic_state WHERE key = 'folded_through_rowid') + 1;
            """)
        try SQLiteEventStore.prepareForQueries(path: path)
        let (from, to) = (SimulatedDashboards.fromMs, SimulatedDashboards.toMs)
        let layer = try StoreAnalysis(path: path, catalog: catalog)
        #expect(layer.source == .analyticalLayer)
        let log = try StoreAnalysis(path: path, catalog: catalog, source: .log)
        let logRange = try #require(try log.eventTimeRange())
        #expect(logRange.first == logRange.last, "the log holds one event")
        #expect(try layer.eventTimeRange().map { $0.first < $0.last } == true)
        let funnel = try #require(catalog.funnels.first { $0.id == "F0" })
        let query = FunnelQuery(funnel: funnel, fromMs: from, toMs: to)
        let logEntries = try log.funnel(query).steps.first?.actors ?? 0
        #expect(logEntries <= 1)
        #expect(try layer.funnel(query).steps.first?.actors ?? 0 > logEntries)
        #expect(try layer.funnelBySQL(query).steps.first?.actors ?? 0 > logEntries)
        let kpi = try #require(catalog.kpis.first { $0.id == "crash_free_sessions" })
        guard case .ratio(_, let denominator) = try layer.kpi(KPIQuery(kpi: kpi, fromMs: from, toMs: to)).rows else {
            Issue.record("crash_free_sessions is a ratio")
            return
        }
        #expect(denominator > 0)
        let panel = try #require(data.dashboards.first { $0.id == "launch_health" }?.panels.first { $0.id == "app_opens" })
        #expect(try layer.run(panel.sources[0], fromMs: from, toMs: to) != log.run(panel.sources[0], fromMs: from, toMs: to))
    }

    @Test("every panel of the six dashboards: the same data from the layer as from the log")
    func dashboards() throws {
        let layer = try StoreAnalysis(path: data.path, catalog: catalog)
        #expect(layer.source == .analyticalLayer, "the shared store's layer has caught up")
        let log = try StoreAnalysis(path: data.path, catalog: catalog, source: .log)
        #expect(data.dashboards.count == 6)
        for dashboard in data.dashboards {
            let expected = try log.dashboard(dashboard, fromMs: SimulatedDashboards.fromMs, toMs: SimulatedDashboards.toMs)
            #expect(try layer.dashboard(dashboard, fromMs: SimulatedDashboards.fromMs, toMs: SimulatedDashboards.toMs) == expected, "\(dashboard.id)")
        }
        #expect(try layer.eventTimeRange()! == log.eventTimeRange()!)
        #expect(try layer.catalogVersions(fromMs: SimulatedDashboards.fromMs, toMs: SimulatedDashboards.toMs)
                == log.catalogVersions(fromMs: SimulatedDashboards.fromMs, toMs: SimulatedDashboards.toMs))
    }

    @Test("a store of schema version 3: analysis refuses it unchanged and names the upgrade; migrated in place, it reports the same funnels and KPIs")
    func migration() throws {
        let directory = try temporaryDirectory("handz-migration")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("v3.sqlite").path
        // A file as version 3 of the store wrote it: migrations 1–3 only, then the simulated events.
        let old = try SQLiteDatabase(path: path)
        try old.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_time_ms INTEGER NOT NULL, description TEXT NOT NULL)")
        for migration in StoreSchema.migrations where migration.version <= 3 {
            try old.execute(migration.sql)
            try old.prepare("INSERT INTO schema_migrations VALUES (?1, 0, ?2)").run([.integer(Int64(migration.version)), .text(migration.description)])
        }
        try old.execute("ATTACH DATABASE '\(data.path)' AS source; INSERT INTO events SELECT * FROM source.events; DETACH DATABASE source")
        #expect(try old.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'events_by_name_time'") == 1)
        let (from, to) = (SimulatedDashboards.fromMs, SimulatedDashboards.toMs)
        // The same events, read from the shared store's log.
        let reference = try StoreAnalysis(path: data.path, catalog: catalog, source: .log)
        let funnels = try catalog.funnels.map { try reference.funnel(FunnelQuery(funnel: $0, fromMs: from, toMs: to)) }
        let kpis = try catalog.kpis.map { try reference.kpi(KPIQuery(kpi: $0, fromMs: from, toMs: to)) }
        // Analysis opens read-only: the older file is refused, from either copy, and stays version 3.
        for source in [StoreAnalysis.Source.analyticalLayer, .log] {
            #expect(throws: StoreReadError.olderSchema(found: 3, current: StoreSchema.currentVersion)) {
                try StoreAnalysis(path: path, catalog: catalog, source: source)
            }
        }
        #expect(try old.scalar("SELECT MAX(version) FROM schema_migrations") == 3)
        // A writer's catch-up (`handz-analytics layer`, `serve`, `import`) migrates it and folds the layer.
        try SQLiteEventStore.prepareForQueries(path: path)
        #expect(try old.scalar("SELECT MAX(version) FROM schema_migrations") == Int64(StoreSchema.currentVersion))
        #expect(try old.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'events_by_name_time'") == 0)
        #expect(try old.scalar("SELECT COUNT(*) FROM analytic_events") == (try old.scalar("SELECT COUNT(*) FROM events")))
        let after = try StoreAnalysis(path: path, catalog: catalog)
        #expect(after.source == .analyticalLayer)
        #expect(try catalog.funnels.map { try after.funnel(FunnelQuery(funnel: $0, fromMs: from, toMs: to)) } == funnels)
        #expect(try catalog.kpis.map { try after.kpi(KPIQuery(kpi: $0, fromMs: from, toMs: to)) } == kpis)
    }
}

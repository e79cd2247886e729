import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzCatalog
import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Issue 33 §5: one engine for the embedded store. A store of schema 5 — the log, the analytical
/// layer of issue 15 folded from it and the layer's session rollup — migrates in place: the
/// layer's tables go, and the column store sealed from the log gives the funnels, KPIs and report
/// the same events gave before (the SQL builders on the log, which the layer was held to).
@Suite struct StoreMigrationTests {
    let catalog = RepositoryCatalog.catalog
    let dashboards = DashboardLoader.load(directory: RepositoryCatalog.root.appendingPathComponent("dashboards").path).dashboards
    static let layerTables = ["analytic_events", "analytic_session_days", "event_names", "event_contexts", "analytic_state"]

    /// A file as version 5 of the store wrote it: migrations 1–5, `data`'s events in the log, the
    /// layer folded from them as its catch-up did, and the rollup migration 5 filled from the layer.
    static func schemaFiveStore(at path: String, from data: SimulatedStore) throws {
        let old = try SQLiteDatabase(path: path)
        try old.registerUUIDFunctions()
        try old.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_time_ms INTEGER NOT NULL, description TEXT NOT NULL)")
        for migration in StoreSchema.migrations where migration.version <= 5 {
            if migration.version == 5 { try foldLayer(old) }
            try old.execute(migration.sql)
            try old.prepare("INSERT INTO schema_migrations VALUES (?1, 0, ?2)").run([.integer(Int64(migration.version)), .text(migration.description)])
            if migration.version == 3 {
                try old.execute("ATTACH DATABASE '\(data.path)' AS source; INSERT INTO events SELECT * FROM source.events; DETACH DATABASE source")
            }
        }
    }

    /// The layer's fold of every log row (issue 15's `AnalyticalLayer.foldBatch`, in one statement per table).
    static func foldLayer(_ database: SQLiteDatabase) throws {
        let context = ["user_state", "app_version", "build_number", "platform", "os_version", "device_model", "locale", "timezone",
                       "network_state", "key_id", "catalog_version"]
        try database.execute("""
            INSERT INTO event_names (name) SELECT DISTINCT event_name FROM events;
            INSERT INTO event_contexts (\(context.joined(separator: ", "))) SELECT DISTINCT \(context.joined(separator: ", ")) FROM events;
            INSERT INTO analytic_events (name_id, event_time_ms, event_id, install, session, user, context_id, received_time_ms, properties)
            SELECT n.id, e.event_time_ms, e.event_id, uuid_blob(e.install_id), uuid_blob(e.session_id), uuid_blob(e.user_id), c.id, e.received_time_ms, e.properties
            FROM events e JOIN event_names n ON n.name = e.event_name
            JOIN event_contexts c ON \(context.map { "c.\($0) = e.\($0)" }.joined(separator: " AND "));
            UPDATE analytic_state SET value = (SELECT MAX(rowid) FROM events) WHERE key = 'folded_through_rowid';
            """)
    }

    @Test("a store of schema 5 with its analytical layer: refused unchanged by analysis, then migrated in place — the layer's tables go and the column store gives the same funnels, KPIs and report")
    func schemaFiveMigrates() throws {
        let data = try SimulatedStore(installs: 60, days: 7, seed: 41)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let path = data.directory.appendingPathComponent("v5.sqlite").path
        try Self.schemaFiveStore(at: path, from: data)
        let old = try SQLiteDatabase(path: path)
        let logRows = try #require(try old.scalar("SELECT COUNT(*) FROM events"))
        #expect(try old.scalar("SELECT COUNT(*) FROM analytic_events") == logRows, "the layer holds every event")
        #expect(try old.scalar("SELECT COUNT(*) FROM analytic_session_days") ?? 0 > 0)

        // Before: the numbers of these events (the SQL builders on the log, as the layer answered).
        let (from, to) = (SimulatedStore.fromMs, data.toMs)
        let reference = try StoreAnalysis(path: data.path, catalog: catalog)
        let funnelQueries = catalog.funnels.flatMap { funnel in [ActorKind.install, .user].map { FunnelQuery(funnel: funnel, fromMs: from, toMs: to, actor: $0) } }
        let kpiQueries = catalog.kpis.flatMap { kpi in [ActorKind.install, .user].map { KPIQuery(kpi: kpi, fromMs: from, toMs: to, actor: $0) } }
        let funnels = try funnelQueries.map { try reference.funnelBySQL($0) }
        let kpis = try kpiQueries.map { try reference.kpi($0) }
        let report = try dashboards.map { try reference.dashboard($0, fromMs: from, toMs: to) }

        // Analysis opens read-only: the older file is refused and stays version 5.
        #expect(throws: StoreReadError.olderSchema(found: 5, current: StoreSchema.currentVersion)) { try StoreAnalysis(path: path, catalog: catalog) }
        #expect(try old.scalar("SELECT MAX(version) FROM schema_migrations") == 5)

        // What `handz-analytics layer --db` does: the writer's open migrates, then the seal.
        try SQLiteEventStore(path: path).closeNow()
        #expect(try old.scalar("SELECT MAX(version) FROM schema_migrations") == Int64(StoreSchema.currentVersion))
        for table in Self.layerTables {
            #expect(try old.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = ?1", [.text(table)]) == 0, "\(table) is gone")
        }
        #expect(try old.scalar("SELECT COUNT(*) FROM events") == logRows, "the log is untouched")
        let columnsDirectory = ColumnStore.directory(forDatabase: path)
        try LogSealer().seal(try SQLiteDatabase(path: path), into: try ColumnStoreWriter(directory: columnsDirectory))
        let engine = ColumnPanels(store: try ColumnStore(directory: columnsDirectory), catalog: catalog,
                                  firstSeen: try InstallFirstSeenTimes(database: try SQLiteDatabase(path: path, readOnly: true)))

        for (query, expected) in zip(funnelQueries, funnels) {
            guard case .funnel(let answer)? = try engine.answer(.funnel(query)) else { Issue.record("\(query.funnel.id): not answered"); continue }
            #expect(answer == expected, "\(query.funnel.id) per \(query.actor)")
        }
        for (query, expected) in zip(kpiQueries, kpis) {
            guard case .kpi(let answer)? = try engine.answer(.kpi(query)) else { Issue.record("\(query.kpi.id): not answered"); continue }
            #expect(answer == expected, "\(query.kpi.id) per \(query.actor)")
        }
        let migrated = try DashboardRunner.run(dashboards, path: path, catalog: catalog, fromMs: from, toMs: to, engine: engine)
        #expect(migrated == report, "the report of every dashboard")
        #expect(funnels.contains { ($0.steps.first?.actors ?? 0) > 0 } && kpis.count == catalog.kpis.count * 2)
    }
}

import HandzAnalyticsCore
import HandzQuery

/// The panels of the CH33 §7 dashboards on the column store: every funnel, KPI and event query
/// the column engine answers (``ColumnFunnel``, ``ColumnKPI``, ``ColumnEventQuery``); nil for the
/// others, which the dashboard runner then runs on SQLite. Immutable and shared by the runner's
/// workers.
public struct ColumnPanels: PanelAnswering {
    public let store: ColumnStore
    public let catalog: Catalog
    public let firstSeen: InstallFirstSeenTimes

    public init(store: ColumnStore, catalog: Catalog, firstSeen: InstallFirstSeenTimes) {
        self.store = store
        self.catalog = catalog
        self.firstSeen = firstSeen
    }

    public func answer(_ query: PanelQuery) throws -> SourceData.Result? {
        switch query {
        case .funnel(let query):
            guard ColumnFunnel.supports(query) else { return nil }
            return .funnel(try ColumnFunnel(store: store, catalog: catalog).run(query))
        case .kpi(let query):
            guard ColumnKPI.supports(query) else { return nil }
            return .kpi(try ColumnKPI(store: store, catalog: catalog, firstSeen: firstSeen).run(query))
        case .events(let query, let fromMs, let toMs):
            guard ColumnEventQuery.supports(query) else { return nil }
            return .query(try ColumnEventQuery(store: store, catalog: catalog).run(query, fromMs: fromMs, toMs: toMs))
        }
    }
}

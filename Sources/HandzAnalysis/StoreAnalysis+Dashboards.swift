import HandzAnalyticsCore
import HandzQuery
import HandzSQLite
import HandzStore

extension StoreAnalysis {
    /// One named event query (CH33 §7 panels): each of its statements run, the rows assembled.
    public func eventQuery(_ query: EventQuery, fromMs: Int64, toMs: Int64) throws -> EventQueryResult {
        let statements = try EventQuerySQLBuilder(catalog: catalog, dialect: .sqlite).statements(query, fromMs: fromMs, toMs: toMs)
        var rows: [EventStatement.Part: [ResultRow]] = [:]
        for statement in statements {
            rows[statement.part] = try database.prepare(try planned(statement.sql, events: query.events)).query { row in
                let columns = 0..<row.columnCount
                return ResultRow(integers: columns.map { row.isNull($0) ? nil : row.int64($0) }, texts: columns.map { row.isNull($0) ? nil : row.text($0) })
            }
        }
        return EventQueryResult(query: query, rows: rows)
    }

    /// Every panel of a dashboard over [from, to): the funnels, KPIs and event queries it names
    /// (one connection; ``DashboardRunner`` uses several).
    public func dashboard(_ dashboard: DashboardDefinition, fromMs: Int64, toMs: Int64, controls: PanelControls = PanelControls()) throws -> DashboardData {
        DashboardData(dashboard: dashboard, fromMs: fromMs, toMs: toMs,
                      panels: try dashboard.panels.map { try panelData($0, fromMs: fromMs, toMs: toMs, controls: controls) })
    }

    /// One panel's sources, each run as ``PanelQuery`` resolves it: by `engine` when it answers
    /// the query (the column store), else here.
    public func panelData(_ panel: PanelDefinition, fromMs: Int64, toMs: Int64, controls: PanelControls = PanelControls(),
                          engine: (any PanelAnswering)? = nil) throws -> PanelData {
        PanelData(panel: panel, sources: try panel.sources.map { source in
            let (query, note) = try PanelQuery.resolve(source, catalog: catalog, fromMs: fromMs, toMs: toMs, controls: controls)
            let result = try engine?.answer(query) ?? run(query)
            return SourceData(label: source.label, result: result, note: note, query: query)
        })
    }

    /// One source with the dashboards' defaults.
    public func run(_ source: PanelSource, fromMs: Int64, toMs: Int64) throws -> SourceData.Result {
        try run(try PanelQuery.resolve(source, catalog: catalog, fromMs: fromMs, toMs: toMs).query)
    }

    public func run(_ query: PanelQuery) throws -> SourceData.Result {
        switch query {
        case .funnel(let query): .funnel(try funnel(query))
        case .kpi(let query): .kpi(try kpi(query))
        case .events(let query, let fromMs, let toMs): .query(try eventQuery(query, fromMs: fromMs, toMs: toMs))
        }
    }
}

extension StoreAnalysis {
    /// How far an event's device time may run past its receipt and still count as "when the data
    /// is": the request signature's freshness window (`RequestSignature.maxClockSkewSeconds`,
    /// 300 s; a test holds the two equal). A device clock further ahead than the server would
    /// accept for signing is a wrong clock, not a late event.
    public static let futureToleranceMs: Int64 = 300_000

    /// The first and last device times (epoch ms) of the stored events that were not dated after
    /// their own receipt (by more than ``futureToleranceMs``), nil when there are none. The
    /// dashboards' range presets ("Last N days of data", "All days with data") and `dashboard
    /// render`'s default range start from it (issue 32 §2).
    ///
    /// Why not every event: CH33 §9 keeps the device's `event_time_utc`, and the validator accepts
    /// any real date up to 2099, so one phone with a wrong clock could otherwise move every
    /// dashboard to its year. An event cannot have happened after the server received it, so one
    /// dated later is left out here — and only here: it is stored, and counted on its device day
    /// by any range that includes that day. Events received long after they happened (offline
    /// queues, `import` of history) anchor the range as before.
    public func eventTimeRange() throws -> (first: Int64, last: Int64)? {
        let sql = "SELECT MIN(event_time_ms), MAX(event_time_ms) FROM events WHERE event_time_ms <= received_time_ms + ?1"
        let rows: [(Int64, Int64)?] = try database.prepare(sql).query([.integer(Self.futureToleranceMs)]) { row in
            row.isNull(0) ? nil : (row.int64(0), row.int64(1))
        }
        return rows.first ?? nil
    }
}

extension StoreAnalysis {
    /// The catalog versions the events of `[fromMs, toMs)` were validated against, sorted as
    /// text (docs/catalog-releases.md: reports over several versions name what each could send).
    public func catalogVersions(fromMs: Int64, toMs: Int64) throws -> [String] {
        let sql = "SELECT DISTINCT catalog_version FROM events WHERE event_time_ms >= ?1 AND event_time_ms < ?2 ORDER BY 1"
        return try database.prepare(sql).query([.integer(fromMs), .integer(toMs)]) { $0.text(0) ?? "" }
    }
}

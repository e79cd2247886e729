import HandzAnalyticsCore
import HandzQuery
import HandzSQLite
import HandzStore

/// Runs the query builders' SQLite SQL on the embedded store and assembles the reports. The SQL
/// is exactly what `handz-analytics sql … --dialect sqlite` prints, except for funnels, whose
/// chains are walked in Swift from one read of their events (``funnel(_:)``), and, on the
/// analytical layer, crash-free sessions (the `session_share` panels with a session key and the
/// KPI `sessions_without_report`), whose per-session days come from one read of every event
/// (``SessionDays``) instead of three sorts of them. The tests hold every one of these to the SQL.
///
/// **Read-only** (issue 32 §9): the store is opened with SQLite's `SQLITE_OPEN_READONLY`
/// (`SQLiteEventStore.openForReading(path:)`), nothing is migrated and nothing is folded; the
/// file's bytes are the same after any number of queries. When the store is behind:
/// - **an older schema** is refused (`StoreReadError.olderSchema`), naming the command that
///   upgrades it (`handz-analytics layer --db FILE`; `serve` and `import` do too);
/// - **a layer behind the log** (events stored but not yet folded, e.g. while `serve` is saturated)
///   is read per ``LaggingLayer``: by default the queries read the log instead, so every answer
///   counts every stored event (exact, slower: the log has no name index); the served dashboards,
///   which fold before they draw, read the layer as it stands and print its lag.
///
/// By default the queries read the store's analytical layer (issue 15, ``AnalyticalLayerSchema``)
/// through a temporary `events` view with the log's columns, which puts the layer under the
/// builders' SQL. ``Source/log`` reads the log's rows instead; the tests hold the two to the same
/// numbers.
public final class StoreAnalysis {
    /// Which copy of the events the queries read.
    public enum Source: Sendable {
        /// The analytical layer (``LaggingLayer`` says what happens when it lags).
        case analyticalLayer
        /// The log (`main.events`), as stored.
        case log
    }

    /// What a reader asked for the analytical layer does when the layer has not folded every
    /// stored event: a read-only reader cannot fold them itself.
    public enum LaggingLayer: Sendable {
        /// Read the log instead: every stored event counted (the command line, the default).
        case readLog
        /// Read the layer as it stands; ``layerLag()`` says how many stored events it leaves out
        /// (the served dashboards: they fold first, and print the lag when they could not).
        case readLayer
    }

    public let catalog: Catalog
    /// The copy the queries read: the one asked for, or the log when the layer lagged at open
    /// and ``LaggingLayer/readLog`` was asked.
    public let source: Source
    /// Stored events the layer had not folded when the store was opened (0 when the log was asked
    /// for, or the layer as it stands: ``layerLag()`` reads it then).
    public let layerLagAtOpen: Int64
    let database: SQLiteDatabase
    let countsCache = EventCountsCache()

    /// Opens the store at `path` read-only (see the type's documentation); throws
    /// `StoreReadError` for a file of an older schema or no store at all, `SQLiteError` for a
    /// missing or unreadable one.
    public init(path: String, catalog: Catalog, source: Source = .analyticalLayer, whenLayerLags: LaggingLayer = .readLog) throws {
        self.catalog = catalog
        let database = try SQLiteEventStore.openForReading(path: path)
        // The lag decides only for `readLog`; `readLayer` readers ask ``layerLag()`` when they need it.
        let lag = source == .analyticalLayer && whenLayerLags == .readLog ? try AnalyticalLayer.lag(database) : 0
        let reads: Source = lag > 0 && whenLayerLags == .readLog ? .log : source
        if reads == .analyticalLayer { try SQLiteEventStore.addLayerViews(database) }
        self.database = database
        self.source = reads
        self.layerLagAtOpen = lag
    }

    /// One funnel run: the funnel's events read once (a table scan or the name index, see
    /// ``planned(_:events:)``) and their chains walked by ``FunnelEvaluator`` — the numbers of
    /// the funnel SQL (``funnelBySQL(_:)``) without its one sort per step. A success on any event
    /// (F1's) is read per install instead, where it can count (``addSuccessEvents(_:into:)``).
    public func funnel(_ query: FunnelQuery) throws -> FunnelReport {
        let builder = FunnelSQLBuilder(catalog: catalog, dialect: .sqlite)
        guard let successFilter = try successReadByInstall(query, builder) else {
            var evaluator = FunnelEvaluator(query: query)
            try walk(try builder.eventsSQL(query), query, into: &evaluator)
            return evaluator.report()
        }
        // One snapshot for both reads (WAL): the layer and the log as of the same commit.
        return try database.transaction("DEFERRED") {
            var evaluator = FunnelEvaluator(query: query)
            try walk(try builder.eventsSQL(query, successOnAnyEvent: false), query, into: &evaluator)
            try addSuccessEvents(successFilter, into: &evaluator)
            return evaluator.report()
        }
    }

    /// Reads the rows of `eventsSQL` into `evaluator`.
    func walk(_ eventsSQL: String, _ query: FunnelQuery, into evaluator: inout FunnelEvaluator) throws {
        let statement = try database.prepare(try planned(eventsSQL, events: query.funnel.eventNames))
        defer { statement.reset() }
        // Columns: actor, t, id, bd, s1…sn, then sx with a success condition, then the linked ids
        // of a funnel across people or a keyed funnel's chain key (FunnelSQLBuilder.valueColumns).
        let flags = Int32(query.funnel.steps.count + (query.funnel.successCondition == nil ? 0 : 1))
        let linked = Int32(FunnelSQLBuilder.valueColumns(query.funnel).count)
        // Actors are canonical UUID text almost always: known by their 16 bytes (in the same
        // open-addressing table as the session rollups, not a SipHash dictionary), each one's
        // text is made once, not once per event.
        var actorsByID = WordPairTable()
        while try statement.step() {
            var mask: UInt32 = 0
            for k in 0..<flags where statement.int64(4 + k) != 0 { mask |= 1 << UInt32(k) }
            let values = linked == 0 ? [] : (0..<linked).map { statement.text(4 + flags + $0) }
            let actor: Int32
            if let id = UUIDWords(lowercaseText: statement.bytes(0)) {
                if let known = actorsByID.value(id.high, id.low) {
                    actor = known
                } else {
                    actor = evaluator.actorNumber(statement.text(0) ?? "")
                    actorsByID.set(id.high, id.low, actor)
                }
            } else {
                actor = evaluator.actorNumber(statement.text(0) ?? "")
            }
            evaluator.add(actorNumber: actor, timeMs: statement.int64(1), eventID: UUIDWords(orderingBytes: statement.bytes(2)), steps: mask,
                          breakdown: statement.isNull(3) ? nil : statement.text(3), values: values)
        }
    }

    /// One funnel run by the SQL `sql funnel --dialect sqlite` prints; with a breakdown, the
    /// overall query and the breakdown query. Same numbers as ``funnel(_:)``, slower on large
    /// stores; the tests hold the two together.
    public func funnelBySQL(_ query: FunnelQuery) throws -> FunnelReport {
        let builder = FunnelSQLBuilder(catalog: catalog, dialect: .sqlite)
        var overallQuery = query
        overallQuery.breakdown = nil
        let events = query.funnel.eventNames
        let overall = try funnelRows(try planned(try builder.sql(overallQuery), events: events))
        let breakdown = try query.breakdown.map { _ in try funnelRows(try planned(try builder.sql(query), events: events)) }
        return FunnelReport(query: query, overall: overall, breakdownRows: breakdown)
    }

    func funnelRows(_ sql: String) throws -> [FunnelRow] {
        try database.prepare(sql).query { row in
            FunnelRow(breakdown: row.text(0), step: Int(row.int64(1)), actors: row.int64(2), medianMs: row.isNull(3) ? nil : row.int64(3), links: row.int64(4))
        }
    }
}

extension StoreAnalysis {
    /// One KPI run.
    public func kpi(_ query: KPIQuery) throws -> KPIReport {
        if let report = try sessionsWithoutReportByReading(query) { return report }
        let sql = try planned(try KPISQLBuilder(catalog: catalog, dialect: .sqlite).sql(query), events: query.kpi.eventNames)
        let statement = try database.prepare(sql)
        switch KPIShape(query.kpi.measure) {
        case .ratio:
            let leftOut = KPISQLBuilder.reportsLeftOut(query.kpi.measure)
            let rows: [(Int64, Int64, Int64?)] = try statement.query { ($0.int64(0), $0.int64(1), leftOut ? $0.int64(2) : nil) }
            let row = rows.first ?? (0, 0, leftOut ? 0 : nil)
            return KPIReport(query: query, rows: .ratio(numerator: row.0, denominator: row.1), leftOut: row.2)
        case .median:
            let rows: [(Int64?, Int64)] = try statement.query { ($0.isNull(0) ? nil : $0.int64(0), $0.int64(1)) }
            return KPIReport(query: query, rows: .median(milliseconds: rows.first?.0 ?? nil, actors: rows.first?.1 ?? 0))
        case .distribution:
            let buckets = try statement.query { KPIBucket(value: $0.isNull(0) ? nil : $0.int64(0), count: $0.int64(1)) }
            return KPIReport(query: query, rows: .distribution(buckets))
        }
    }
}

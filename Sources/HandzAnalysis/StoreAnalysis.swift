import HandzAnalyticsCore
import HandzQuery
import HandzSQLite
import HandzStore

/// Runs the query builders' SQLite SQL on the embedded store (read-only) and assembles the
/// reports. The SQL is exactly what `handz-analytics sql … --dialect sqlite` prints, except for
/// funnels, whose chains are walked in Swift from one read of their events (``funnel(_:)``), and,
/// on the analytical layer, crash-free sessions (the `session_share` panels with a session key and
/// the KPI `sessions_without_report`), whose per-session days come from one read of every event
/// (``SessionDays``) instead of three sorts of them. The tests hold every one of these to the SQL.
///
/// By default the queries read the store's analytical layer (issue 15, ``AnalyticalLayerSchema``):
/// opening one first migrates an older file and folds every stored event into the layer, then a
/// temporary `events` view with the log's columns puts the layer under the builders' SQL.
/// ``Source/log`` reads the log's rows instead; the tests hold the two to the same numbers.
public final class StoreAnalysis {
    /// Which copy of the events the queries read.
    public enum Source: Sendable {
        /// The analytical layer, caught up with the log before the first query.
        case analyticalLayer
        /// The log (`main.events`), as stored.
        case log
    }

    public let catalog: Catalog
    public let source: Source
    let database: SQLiteDatabase
    let countsCache = EventCountsCache()

    /// `catchUp: false` reads the layer as it is, without migrating or folding first (the served
    /// dashboards fold once per page, and show the lag when they could not).
    public init(path: String, catalog: Catalog, source: Source = .analyticalLayer, catchUp: Bool = true) throws {
        self.catalog = catalog
        self.source = source
        switch source {
        case .analyticalLayer:
            database = try SQLiteEventStore.openForQueries(path: path, catchUp: catchUp)
        case .log:
            database = try SQLiteDatabase(path: path, readOnly: true)
            try database.execute(SQLiteEventStore.analysisSettings)
        }
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
        // of a funnel across people.
        let flags = Int32(query.funnel.steps.count + (query.funnel.successCondition == nil ? 0 : 1))
        let linked = query.funnel.handoffIndex == nil ? 0 : Int32(FunnelSQLBuilder.linkProperties(query.funnel).count)
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

import HandzAnalyticsCore
import HandzQuery
import HandzSQLite
import HandzStore

/// Runs the query builders' SQLite SQL on the embedded store's log and assembles the reports:
/// the engine behind `--via sqlite`, and the one the tests hold the column engine
/// (HandzColumnStore, the default) to. The SQL is exactly what `handz-analytics sql … --dialect
/// sqlite` prints, except for funnels, whose chains are walked in Swift from one read of their
/// events (``funnel(_:)``). The tests hold every one of these to the SQL.
///
/// **Read-only** (issue 32 §9): the store is opened with SQLite's `SQLITE_OPEN_READONLY`
/// (`SQLiteEventStore.openForReading(path:)`), nothing is migrated and nothing is sealed; the
/// file's bytes are the same after any number of queries. A store of an older schema is refused
/// (`StoreReadError.olderSchema`), naming the command that upgrades it (`handz-analytics layer
/// --db FILE`; `serve` and `import` do too).
///
/// It reads the log as stored (`main.events`), which is kept for writing: a query reads the whole
/// table (the log's only indexes are the dedupe key and the installs', issue 33 §5), exactly and
/// more slowly than the column store.
public final class StoreAnalysis {
    public let catalog: Catalog
    private let log: SQLiteDatabase
    /// A segment engine's store (issue 34): its log is empty, and every query is refused
    /// (`StoreReadError.eventsInSegments`) rather than answered with nothing.
    private let eventsInSegments: Bool

    /// The log, for every query; throws for a segment store.
    var database: SQLiteDatabase {
        get throws {
            guard !eventsInSegments else { throw StoreReadError.eventsInSegments }
            return log
        }
    }

    /// Opens the store at `path` read-only (see the type's documentation); throws
    /// `StoreReadError` for a file of an older schema or no store at all, `SQLiteError` for a
    /// missing or unreadable one.
    public init(path: String, catalog: Catalog) throws {
        self.catalog = catalog
        log = try SQLiteEventStore.openForReading(path: path)
        eventsInSegments = try SQLiteEventStore.engine(log) == "segments"
    }

    /// One funnel run: the funnel's events read once and their chains walked by
    /// ``FunnelEvaluator`` — the numbers of the funnel SQL (``funnelBySQL(_:)``) without its one
    /// sort per step.
    public func funnel(_ query: FunnelQuery) throws -> FunnelReport {
        var evaluator = FunnelEvaluator(query: query)
        try walk(try FunnelSQLBuilder(catalog: catalog, dialect: .sqlite).eventsSQL(query), query, into: &evaluator)
        return evaluator.report()
    }

    /// Reads the rows of `eventsSQL` into `evaluator`.
    func walk(_ eventsSQL: String, _ query: FunnelQuery, into evaluator: inout FunnelEvaluator) throws {
        let statement = try database.prepare(try planned(eventsSQL, events: query.funnel.eventNames))
        defer { statement.reset() }
        // Columns: actor, t, id, bd, s1…sn, then sx with a success condition, then the linked ids
        // of a funnel across people or a keyed funnel's chain key (FunnelSQLBuilder.valueColumns).
        // Each flag column's bit: steps 0…n−1, the success n, exclusion i n + 1 + i (FunnelModes).
        let steps = query.funnel.steps.count
        let bits = (0..<steps).map { UInt32(1) << UInt32($0) } + (query.funnel.successCondition == nil ? [] : [UInt32(1) << UInt32(steps)])
            + query.funnel.exclusions.indices.map { FunnelModes.exclusionBit($0, steps: steps) }
        let flags = Int32(bits.count)
        let linked = Int32(FunnelSQLBuilder.valueColumns(query.funnel).count)
        // Actors are canonical UUID text almost always: known by their 16 bytes (in the same
        // open-addressing table as the session rollups, not a SipHash dictionary), each one's
        // text is made once, not once per event.
        var actorsByID = WordPairTable()
        while try statement.step() {
            var mask: UInt32 = 0
            for k in 0..<flags where statement.int64(4 + k) != 0 { mask |= bits[Int(k)] }
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
        overallQuery.byEntryDay = false
        let events = query.funnel.eventNames
        let overall = try funnelRows(try planned(try builder.sql(overallQuery), events: events))
        let breakdown = query.breakdown == nil && !query.byEntryDay ? nil : try funnelRows(try planned(try builder.sql(query), events: events))
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

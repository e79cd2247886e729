import HandzQuery
import HandzSQLite

/// Crash-free sessions (a `session_share` with a session key) on the analytical layer: `sd` from
/// one read of every event (``SessionDays``), then the daily and rolling figures from it in
/// Swift (``SessionDays/sessionShareRows(rollingDays:)``), by the rules of the rest of the
/// builder's statement (``EventQuerySQLBuilder/sessionShareOverDays(_:fromMs:toMs:)``).
///
/// Why: the statement's `sd` sorts every stored event three times and turns every id into text;
/// at 20,000 installs it was 12.5 s of a 22.9 s render (BENCHMARKS.md, "The store split"). The
/// rows are the same (`AnalyticalLayerAgreementTests` holds them to the statement on the log).
extension StoreAnalysis {
    /// The `.sessions` rows, or nil when this reader does not apply (the log, no session key, an
    /// event id that is not 16 bytes): the caller then runs the statement.
    func sessionShareByReading(_ query: EventQuery, fromMs: Int64, toMs: Int64) throws -> [ResultRow]? {
        guard source == .analyticalLayer, query.kind == .sessionShare, query.sessionKey != nil else { return nil }
        // The statement is not run, but its checks (range, rolling days) hold here too.
        _ = try EventQuerySQLBuilder(catalog: catalog, dialect: .sqlite).sessionShareOverDays(query, fromMs: fromMs, toMs: toMs)
        return try readSessionDays(query, fromMs: fromMs, toMs: toMs)?.sessionShareRows(rollingDays: query.rollingDays)
    }

    /// The KPI `sessions_without_report` (crash_free_sessions) from the same read: per session of
    /// the range rather than per day (``SessionDays/sessionTotals()``). Nil when the reader does not apply.
    func sessionsWithoutReportByReading(_ query: KPIQuery) throws -> KPIReport? {
        guard query.kpi.measure == .sessionsWithoutReport, query.source == .table, let exclude = query.kpi.exclude, let key = query.kpi.key else { return nil }
        let reports = EventQuery(kind: .sessionShare, match: exclude, sessionKey: key)
        guard let totals = try readSessionDays(reports, fromMs: query.fromMs, toMs: query.toMs)?.sessionTotals() else { return nil }
        return KPIReport(query: query, rows: .ratio(numerator: totals.good, denominator: totals.known), leftOut: totals.unknown)
    }

    /// Every stored event read once from the layer into ``SessionDays`` (reports: `query.match`
    /// naming a session in `query.sessionKey`); nil on the log or for an event id that is not 16 bytes.
    func readSessionDays(_ query: EventQuery, fromMs: Int64, toMs: Int64) throws -> SessionDays? {
        guard source == .analyticalLayer, fromMs < toMs else { return nil }
        let columns = try EventQuerySQLBuilder(catalog: catalog, dialect: .sqlite).sessionReportColumns(query)
        let read = try database.prepare("""
            SELECT e.install_id, e.session_id, e.event_time_ms, e.event_id, \(columns.isReport), \(columns.namedSession)
            FROM event_keys e
            """)
        defer { read.reset() }
        var days = SessionDays(fromMs: fromMs, toMs: toMs)
        while try read.step() {
            guard let eventID = UUIDWords(bytes: read.bytes(3)) else { return nil }
            let isReport = read.int64(4) != 0
            days.add(install: Self.storedID(read, 0), session: Self.storedID(read, 1), timeMs: read.int64(2), eventID: eventID,
                     isReport: isReport, named: isReport && !read.isNull(5) ? Self.namedID(read.bytes(5)) : nil)
        }
        return days
    }

    /// An id column of `event_keys`: 16 bytes, or the text of an id that is not a UUID, or NULL.
    static func storedID(_ row: SQLiteStatement, _ column: Int32) -> SessionDays.ID {
        if row.isNull(column) { return .missing }
        if row.isBlob(column), let words = UUIDWords(bytes: row.bytes(column)) { return .uuid(words) }
        return .text(row.text(column) ?? "")
    }

    /// The session a report names (text from its properties), as the id it equals: the words of
    /// canonical lower-case text (what the `events` view shows for a 16-byte id), else the text.
    static func namedID(_ text: UnsafeRawBufferPointer) -> SessionDays.ID {
        if let words = UUIDWords(lowercaseText: text) { return .uuid(words) }
        return .text(String(decoding: text, as: UTF8.self))
    }
}

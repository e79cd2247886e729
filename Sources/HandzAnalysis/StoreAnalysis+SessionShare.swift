import HandzAnalyticsCore
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

    /// ``SessionDays`` from the layer (reports: `query.match` naming a session in
    /// `query.sessionKey`): from the session rollup and the reports when the range runs from UTC
    /// midnight to UTC midnight (the dashboards' ranges), else from every stored event read once;
    /// nil on the log or for an event id that is not 16 bytes.
    func readSessionDays(_ query: EventQuery, fromMs: Int64, toMs: Int64) throws -> SessionDays? {
        guard source == .analyticalLayer, fromMs < toMs else { return nil }
        let columns = try EventQuerySQLBuilder(catalog: catalog, dialect: .sqlite).sessionReportColumns(query)
        if fromMs % EventQuery.dayMs == 0 && toMs % EventQuery.dayMs == 0 {
            return try readSessionRollup(columns, fromMs: fromMs, toMs: toMs)
        }
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

    /// ``SessionDays`` from `analytic_session_days` (one row per install, session and UTC day)
    /// and the reports (a key range of the layer): at 100,000 installs × 30 days, 0.5 M rows and
    /// a few thousand reports instead of 7.3 M events.
    /// Both reads in one transaction: the rollup and the reports as of the same commit, even
    /// while a server folds new events into the file.
    func readSessionRollup(_ columns: (match: String, isReport: String, namedSession: String), fromMs: Int64, toMs: Int64) throws -> SessionDays? {
        try database.transaction("DEFERRED") { try readSessionRollupInTransaction(columns, fromMs: fromMs, toMs: toMs) }
    }

    private func readSessionRollupInTransaction(_ columns: (match: String, isReport: String, namedSession: String), fromMs: Int64, toMs: Int64) throws -> SessionDays? {
        var days = SessionDays(fromMs: fromMs, toMs: toMs)
        let groups = try database.prepare("SELECT install, session, day, last_time_ms, last_event_id FROM main.analytic_session_days")
        defer { groups.reset() }
        while try groups.step() {
            guard let lastEventID = UUIDWords(bytes: groups.bytes(4)) else { return nil }
            days.addSessionDay(install: Self.storedID(groups, 0), session: Self.storedID(groups, 1), utcDay: groups.int64(2),
                               lastTimeMs: groups.int64(3), lastEventID: lastEventID)
        }
        let reports = try database.prepare("SELECT e.session_id, e.event_time_ms, \(columns.namedSession) FROM event_keys e WHERE \(columns.match)")
        defer { reports.reset() }
        while try reports.step() {
            days.addReport(session: Self.storedID(reports, 0), timeMs: reports.int64(1), named: reports.isNull(2) ? nil : Self.namedID(reports.bytes(2)))
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

import HandzAnalyticsCore
import HandzQuery

/// Crash-free sessions on the column store (CH33 §5.2 Quality, §6.11, §7.1): the KPI
/// `sessions_without_report` and the dashboards' `session_share` with a session key. Both need
/// every event of all time (an install's last session is unknown; a crash is reported on the next
/// launch, possibly after the range), so every chunk's install, session, time and id are read,
/// and the reports' key; ``SessionDays`` (HandzQuery) turns them into the same figures as on the
/// SQLite path, by the same code. Ids are ``TextKeys``, so a report's named session equals the
/// session whose id has the same text, whatever column type held either.
struct ColumnSessions {
    let store: ColumnStore
    let catalog: Catalog

    /// The session days of [fromMs, toMs) with `reports` (events naming a session in `key`).
    func days(reports: EventMatch, key: String, fromMs: Int64, toMs: Int64) throws -> SessionDays {
        var matchers = RowMatchers()
        matchers.add(bit: 1, events: reports.events, filters: reports.filters, catalog: catalog, strings: store.strings)
        let keyColumn = RowMatchers.columnName(key)
        var days = SessionDays(fromMs: fromMs, toMs: toMs)
        func id(_ key: UInt64) -> SessionDays.ID { key == 0 ? .missing : .key(key) }
        for entry in store.manifest.chunks {
            let read = ChunkColumns(chunk: try store.chunk(entry), file: entry.file)
            let installs = try read.keys(ColumnName.installID, store.textKeys)
            let sessions = try read.textKeys(ColumnName.sessionID, store.textKeys)
            let times = try read.times(ColumnName.eventTime)
            let ids = try read.ids()
            let isReport = try matchers.masks(read, strings: store.strings)
            let named = isReport.contains(1) ? try read.textKeys(keyColumn, store.textKeys) : []
            for row in 0..<read.chunk.rows {
                let report = isReport[row] != 0
                days.add(install: id(installs[row]), session: id(sessions[row]), timeMs: times[row], eventID: ids[row],
                         isReport: report, named: report && named[row] != 0 ? .key(named[row]) : nil)
            }
        }
        return days
    }
}

extension ColumnKPI {
    /// `sessions_without_report` (crash_free_sessions): per session of the range.
    func sessionsWithoutReport(_ query: KPIQuery) throws -> KPIReport {
        guard let exclude = query.kpi.exclude, let key = query.kpi.key else { throw QueryError.invalidRange("\(query.kpi.id) needs exclude and key") }
        let totals = try ColumnSessions(store: store, catalog: catalog).days(reports: exclude, key: key, fromMs: query.fromMs, toMs: query.toMs).sessionTotals()
        return KPIReport(query: query, rows: .ratio(numerator: totals.good, denominator: totals.known), leftOut: totals.unknown)
    }
}

extension ColumnEventQuery {
    /// `session_share` with a session key: per day and per rolling window.
    func sessionShare(_ query: EventQuery, fromMs: Int64, toMs: Int64) throws -> EventQueryResult {
        guard let key = query.sessionKey else { preconditionFailure("session_share without a key is not supported on the column engine") }
        // The statement is not run, but its checks (range, rolling days) hold here too.
        _ = try EventQuerySQLBuilder(catalog: catalog, dialect: .sqlite).sessionShareOverDays(query, fromMs: fromMs, toMs: toMs)
        let days = try ColumnSessions(store: store, catalog: catalog).days(reports: query.match, key: key, fromMs: fromMs, toMs: toMs)
        return EventQueryResult(query: query, rows: [.sessions: days.sessionShareRows(rollingDays: query.rollingDays)])
    }
}

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
    ///
    /// With the range on UTC midnights (the dashboards' ranges, and the KPI's on whole days) a
    /// chunk is one UTC day, and its rows come sorted by install, then time: each run of one
    /// install's rows in one session is one session day, given to ``SessionDays`` as the session
    /// rollup's row is (its last event's time and id), and only the reports row by row — the
    /// SQLite path's rollup, made from the chunks as they are read. Other ranges take every row.
    func days(reports: EventMatch, key: String, fromMs: Int64, toMs: Int64) throws -> SessionDays {
        var matchers = RowMatchers()
        matchers.add(bit: 1, events: reports.events, filters: reports.filters, catalog: catalog, strings: store.strings)
        let keyColumn = RowMatchers.columnName(key)
        let byRuns = fromMs % EventQuery.dayMs == 0 && toMs % EventQuery.dayMs == 0
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
            guard byRuns else {
                for row in 0..<read.chunk.rows {
                    let report = isReport[row] != 0
                    days.add(install: id(installs[row]), session: id(sessions[row]), timeMs: times[row], eventID: ids[row],
                             isReport: report, named: report && named[row] != 0 ? .key(named[row]) : nil)
                }
                continue
            }
            var row = 0
            while row < read.chunk.rows {
                // One run: the same install and session; its last row is last by (time, id).
                var end = row + 1
                while end < read.chunk.rows && installs[end] == installs[row] && sessions[end] == sessions[row] { end += 1 }
                days.addSessionDay(install: id(installs[row]), session: id(sessions[row]), utcDay: entry.day,
                                   lastTimeMs: times[end - 1], lastEventID: ids[end - 1])
                row = end
            }
            if !named.isEmpty {
                for row in 0..<read.chunk.rows where isReport[row] != 0 {
                    days.addReport(session: id(sessions[row]), timeMs: times[row], named: named[row] != 0 ? .key(named[row]) : nil)
                }
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

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
    /// With the range on UTC midnights (the dashboards' ranges, and the KPI's on whole days) and
    /// a store with the session rollup, each (install, session) of a day is one row of the
    /// day's rollup chunks (``SessionRollup``), given to ``SessionDays`` as the SQLite path's
    /// session rollup row is (its last event's time and id); only the report events' chunks are
    /// read besides. A pair's rows from several undeduplicated parts are folded through an
    /// array indexed by the session's UUID code, not a hash table; the rare others (text ids, a
    /// missing session, a session two installs share) through a dictionary. Other ranges, and
    /// a format-1 store, take every row of every chunk.
    func days(reports: EventMatch, key: String, fromMs: Int64, toMs: Int64) throws -> SessionDays {
        var matchers = RowMatchers()
        matchers.add(bit: 1, events: reports.events, filters: reports.filters, catalog: catalog, strings: store.strings)
        let keyColumn = RowMatchers.columnName(key)
        let rollupRowsInRange = store.manifest.sessionChunks.filter { $0.maxTimeMs >= fromMs && $0.minTimeMs < toMs }.reduce(0) { $0 + $1.rows }
        var days = SessionDays(fromMs: fromMs, toMs: toMs, denseKeysBelow: store.manifest.uuids.count + 1, expectedSessionDays: rollupRowsInRange)
        func id(_ key: UInt64) -> SessionDays.ID { key == 0 ? .missing : .key(key) }
        func addReports(_ rows: SessionRows) {
            guard !rows.named.isEmpty else { return }
            for row in 0..<rows.count where rows.isReport[row] != 0 {
                days.addReport(session: id(rows.sessions[row]), timeMs: rows.times[row], named: rows.named[row] != 0 ? .key(rows.named[row]) : nil)
            }
        }
        guard fromMs % EventQuery.dayMs == 0 && toMs % EventQuery.dayMs == 0 && store.manifest.hasSessionRollup else {
            for entry in store.manifest.chunks {
                let rows = try SessionRows(entry, store: store, reports: matchers, keyColumn: keyColumn)
                for row in 0..<rows.count {
                    let report = rows.isReport[row] != 0
                    days.add(install: id(rows.installs[row]), session: id(rows.sessions[row]), timeMs: rows.times[row], eventID: rows.ids[row],
                             isReport: report, named: report && rows.named[row] != 0 ? .key(rows.named[row]) : nil)
                }
            }
            return days
        }
        var rollupByDay: [Int64: [ColumnManifest.ChunkEntry]] = [:]
        for entry in store.manifest.sessionChunks { rollupByDay[entry.day, default: []].append(entry) }
        for entry in store.manifest.chunks where reports.events.isEmpty || reports.events.contains(entry.event) {
            addReports(try SessionRows(entry, store: store, reports: matchers, keyColumn: keyColumn))
        }
        // Per session code: the day it was last seen on (+1) and its entry that day.
        var seenOn = [Int64](repeating: 0, count: store.manifest.uuids.count + 1)
        var slotOf = [Int32](repeating: 0, count: store.manifest.uuids.count + 1)
        struct Last { var install: UInt64; var session: UInt64; var time: Int64; var id: UUIDWords }
        for day in rollupByDay.keys.sorted() {
            var entries: [Last] = []
            var others: [[UInt64]: Int] = [:]
            func note(_ install: UInt64, _ session: UInt64, _ time: Int64, _ eventID: UUIDWords) {
                let slot: Int
                if session != 0, session < UInt64(seenOn.count), seenOn[Int(session)] == day + 1, entries[Int(slotOf[Int(session)])].install == install {
                    slot = Int(slotOf[Int(session)])
                } else if session != 0, session < UInt64(seenOn.count), seenOn[Int(session)] != day + 1 {
                    seenOn[Int(session)] = day + 1
                    slotOf[Int(session)] = Int32(entries.count)
                    entries.append(Last(install: install, session: session, time: time, id: eventID))
                    return
                } else if let known = others[[install, session]] {
                    slot = known
                } else {
                    others[[install, session]] = entries.count
                    entries.append(Last(install: install, session: session, time: time, id: eventID))
                    return
                }
                if (entries[slot].time, entries[slot].id) < (time, eventID) { (entries[slot].time, entries[slot].id) = (time, eventID) }
            }
            for entry in rollupByDay[day]! {
                let rows = try SessionRows(entry, store: store, reports: nil, keyColumn: keyColumn)
                for row in 0..<rows.count { note(rows.installs[row], rows.sessions[row], rows.times[row], rows.ids[row]) }
            }
            for last in entries {
                days.addSessionDay(install: id(last.install), session: id(last.session), utcDay: day, lastTimeMs: last.time, lastEventID: last.id)
            }
        }
        return days
    }
}

/// One chunk's columns as crash-free sessions read them.
struct SessionRows {
    let installs: [UInt64]
    let sessions: [UInt64]
    let times: [Int64]
    let ids: [UUIDWords]
    let isReport: [UInt32]
    /// The session each report names (empty when the chunk holds no report).
    let named: [UInt64]
    var count: Int { times.count }

    /// `reports` nil: no row is a report (the session rollup's chunks).
    init(_ entry: ColumnManifest.ChunkEntry, store: ColumnStore, reports: RowMatchers?, keyColumn: String) throws {
        let read = try store.columns(entry)
        installs = try read.keys(ColumnName.installID, store.textKeys)
        sessions = try read.textKeys(ColumnName.sessionID, store.textKeys)
        times = try read.times(ColumnName.eventTime)
        ids = try read.ids()
        isReport = try reports?.masks(read, strings: store.strings) ?? Array(repeating: 0, count: read.chunk.rows)
        named = isReport.contains(1) ? try read.textKeys(keyColumn, store.textKeys) : []
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

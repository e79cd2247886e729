import HandzSQLite

/// Each install's first-seen time (issue 32 §6), kept beside the log so that install time — the
/// cohort measures' start, the first `app_open` (HandzQuery docs, "KPI definitions") — survives
/// what removes events: retention (CH33-P3) and a deletion's de-identification (CH34 §8.3).
///
/// One row per `install_id` that has sent an `app_open`, written on ingest in the transaction that
/// stores the events (one upsert per install per commit, not per event):
/// - `first_app_open_ms`: the earliest `event_time_ms` of its `app_open`s ever stored. Retention
///   and de-identification do not move it, so an install whose first `app_open` is gone is known
///   to be older than its stored events, and the KPIs put it in no later cohort.
///   ``beforeStoredEvents`` (0) says "first seen before any of its stored events; when is not
///   kept" (after a de-identification, ``afterDeidentification(installFirstMs:pastFirstAppOpenMs:installLastReceivedMs:cutoffMs:)``).
/// - `last_received_ms`: the latest `received_time_ms` of its `app_open`s. Retention removes the
///   row once that is before its cutoff: everything the row was derived from has gone, and the
///   id goes with it.
///
/// What it ties to no person: a random per-install id (CH33 §3.1) and two times; no `user_id`, no
/// session, nothing the app's user typed.
public enum InstallFirstSeen {
    /// The table's name, as the query builders read it (`HandzQuery.InstallFirstSeenTable`; a test keeps them in step).
    public static let table = "install_first_seen"

    /// "First seen before any of its stored events": below every event time the validator
    /// accepts (2000–2099, CH33 §3.2), so the KPIs' test "first seen before its first stored
    /// app_open" holds, and it says nothing about when.
    public static let beforeStoredEvents: Int64 = 0

    /// Store migration 6: the table, filled from the log's `app_open`s as they stand (a store
    /// that de-identified or purged before it cannot recover what went; its later cohorts keep
    /// what they had). Idempotent: run again, it adds nothing.
    static let migrationSQL = """
    CREATE TABLE IF NOT EXISTS install_first_seen (
        install_id        TEXT    NOT NULL PRIMARY KEY,  -- as events.install_id
        first_app_open_ms INTEGER NOT NULL,  -- the earliest event_time_ms of its app_opens ever stored; 0: before its stored events
        last_received_ms  INTEGER NOT NULL   -- the latest received_time_ms of its app_opens; retention drops the row after it
    ) WITHOUT ROWID;
    INSERT OR IGNORE INTO install_first_seen (install_id, first_app_open_ms, last_received_ms)
    SELECT install_id, MIN(event_time_ms), MAX(received_time_ms) FROM events WHERE event_name = 'app_open' GROUP BY install_id;
    """

    /// One install's `app_open`s of a commit: ?1 install, ?2 earliest event time, ?3 latest receipt.
    static let upsertSQL = """
    INSERT INTO install_first_seen (install_id, first_app_open_ms, last_received_ms) VALUES (?1, ?2, ?3)
    ON CONFLICT (install_id) DO UPDATE SET first_app_open_ms = MIN(first_app_open_ms, excluded.first_app_open_ms),
                                           last_received_ms = MAX(last_received_ms, excluded.last_received_ms)
    """

    /// Retention (?1 the cutoff): the rows of installs whose every `app_open` was received before it.
    static let purgeSQL = "DELETE FROM install_first_seen WHERE last_received_ms < ?1"

    /// The `app_open`s of one commit, per install: its earliest event time and latest receipt.
    struct Pending {
        private(set) var byInstall: [String: (first: Int64, last: Int64)] = [:]

        mutating func add(install: String, eventTimeMs: Int64, receivedMs: Int64) {
            if let known = byInstall[install] {
                byInstall[install] = (min(known.first, eventTimeMs), max(known.last, receivedMs))
            } else {
                byInstall[install] = (eventTimeMs, receivedMs)
            }
        }
    }

    /// `app_open` as bytes, for the writer's test on a row's name.
    static let appOpen = Array("app_open".utf8)

    /// What a de-identification changes in the table, for one install whose past moved to a fresh
    /// id (``Deidentification``).
    public enum Change: Equatable, Sendable {
        /// Nothing: the install has no row, or the past holds no `app_open`.
        case none
        /// The past holds the install's first `app_open`, so it keeps the install's cohort by its
        /// own events (it gets no row); the install's row keeps only that it was first seen before
        /// its stored events, received last at `lastReceivedMs`.
        case install(lastReceivedMs: Int64)
        /// The install kept its first `app_open` (another account's signed-in event), or its first
        /// is gone already: the past gets a row saying it began before its stored events, kept
        /// until `lastReceivedMs`.
        case past(lastReceivedMs: Int64)
    }

    /// The rule (both stores run it): the copy that holds the install's first `app_open` keeps
    /// its cohort; the other is marked ``beforeStoredEvents`` so it joins no later one.
    ///
    /// No time that ties the two copies together is kept: the install's row loses its first time
    /// (the past's first `app_open` carries it, and the same time on the install's row would join
    /// them), and its receipt time becomes the latest of its own remaining `app_open`s, or else
    /// the end of the request's UTC day — not the past's last receipt. The past's row holds only
    /// that day end, after every event of the past was received, so retention drops the row with them.
    /// - Parameters:
    ///   - installFirstMs: the install's `first_app_open_ms`, nil without a row.
    ///   - pastFirstAppOpenMs: the earliest `app_open` now under the past's fresh id, nil if none.
    ///   - installLastReceivedMs: the latest receipt of the `app_open`s left under the install's id.
    ///   - cutoffMs: the request's receipt time (the past is what was received up to it).
    public static func afterDeidentification(installFirstMs: Int64?, pastFirstAppOpenMs: Int64?, installLastReceivedMs: Int64?,
                                             cutoffMs: Int64) -> Change {
        guard let installFirstMs, let pastFirstAppOpenMs else { return .none }
        let dayEnd = (cutoffMs.floorDivided(by: 86_400_000) + 1) * 86_400_000
        if installFirstMs != beforeStoredEvents && pastFirstAppOpenMs <= installFirstMs {
            return .install(lastReceivedMs: installLastReceivedMs ?? dayEnd)
        }
        return .past(lastReceivedMs: dayEnd)
    }

    /// Runs ``afterDeidentification(installFirstMs:pastFirstAppOpenMs:installLastReceivedMs:cutoffMs:)``
    /// on the embedded store, inside the de-identification's transaction, after the past moved.
    static func deidentified(_ database: SQLiteDatabase, install: String, past: String, cutoffMs: Int64) throws {
        let pastFirst = try optionalInteger(database, "SELECT MIN(event_time_ms) FROM events WHERE install_id = ?1 AND event_name = 'app_open'", past)
        let installLast = try optionalInteger(database, "SELECT MAX(received_time_ms) FROM events WHERE install_id = ?1 AND event_name = 'app_open'", install)
        try deidentified(database, install: install, past: past, pastFirstAppOpenMs: pastFirst, installLastReceivedMs: installLast, cutoffMs: cutoffMs)
    }

    /// ``deidentified(_:install:past:cutoffMs:)`` with the two event facts given by the caller (the
    /// segment engine reads them from its chunks, not from the `events` table).
    static func deidentified(_ database: SQLiteDatabase, install: String, past: String, pastFirstAppOpenMs pastFirst: Int64?,
                             installLastReceivedMs installLast: Int64?, cutoffMs: Int64) throws {
        let installFirst = try optionalInteger(database, "SELECT first_app_open_ms FROM install_first_seen WHERE install_id = ?1", install)
        switch afterDeidentification(installFirstMs: installFirst, pastFirstAppOpenMs: pastFirst, installLastReceivedMs: installLast, cutoffMs: cutoffMs) {
        case .none:
            break
        case .install(let last):
            try database.prepare("UPDATE install_first_seen SET first_app_open_ms = ?1, last_received_ms = ?2 WHERE install_id = ?3")
                .run([.integer(beforeStoredEvents), .integer(last), .text(install)])
        case .past(let last):
            try database.prepare(upsertSQL).run([.text(past), .integer(beforeStoredEvents), .integer(last)])
        }
    }

    static func optionalInteger(_ database: SQLiteDatabase, _ sql: String, _ argument: String) throws -> Int64? {
        let rows: [Int64?] = try database.prepare(sql).query([.text(argument)]) { $0.isNull(0) ? nil : $0.int64(0) }
        return rows.first ?? nil
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}

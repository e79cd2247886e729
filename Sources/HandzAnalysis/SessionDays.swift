import HandzQuery
import HandzSQLite

/// The `sd(session, day, bad, lst)` relation of a `session_share` with a session key (crash-free
/// sessions, CH33 §5.2 Quality, §6.11, §7.1), built from one pass over every stored event in any
/// order: what ``EventQuerySQLBuilder/sessionDays(_:match:access:from:to:)`` computes in SQL with
/// three sorts of all events (`rep`, `ls`, `sb`), here with three hash tables.
///
/// - `rep`: the sessions a report names, at any time (a crash is reported on the next launch).
/// - `ls`: each install's session holding its last event by (time, id), at any time.
/// - `sb`: each (session, day) with an event in [from, to), day = ⌊(t − from) / 24 h⌋; `unnamed`
///   when a report without the key is among that day's events.
/// - a row is `bad` when unnamed or its session is in `rep`, `lst` when its session is in `ls`.
///
/// Ids are compared as SQL compares them: a missing id (NULL) equals nothing but groups with
/// the other missing ones; an id the layer keeps as text (not a canonical UUID) equals only the
/// same text.
struct SessionDays {
    /// An id as the layer holds it.
    enum ID: Hashable {
        case uuid(UUIDWords)
        case text(String)
        case missing
    }

    struct Last {
        var timeMs: Int64
        var eventID: UUIDWords
        var session: ID
    }

    let fromMs: Int64
    let toMs: Int64
    private(set) var reported: Set<ID> = []
    private(set) var last: [ID: Last] = [:]
    /// (session, day) → unnamed.
    private(set) var days: [SessionDay: Bool] = [:]

    struct SessionDay: Hashable {
        var session: ID
        var day: Int64
    }

    init(fromMs: Int64, toMs: Int64) {
        self.fromMs = fromMs
        self.toMs = toMs
    }

    /// One stored event. `isReport`: it matches the query's `match`; `named`: the session its key
    /// names (nil when absent, or when it is not a report).
    mutating func add(install: ID, session: ID, timeMs: Int64, eventID: UUIDWords, isReport: Bool, named: ID?) {
        if isReport, let named { reported.insert(named) }
        if let previous = last[install], (previous.timeMs, previous.eventID) >= (timeMs, eventID) {
            // An older event of the install: its last stays.
        } else {
            last[install] = Last(timeMs: timeMs, eventID: eventID, session: session)
        }
        guard timeMs >= fromMs, timeMs < toMs else { return }
        let key = SessionDay(session: session, day: (timeMs - fromMs) / EventQuery.dayMs)
        let unnamed = isReport && named == nil
        if let seen = days[key] {
            if unnamed && !seen { days[key] = true }
        } else {
            days[key] = unnamed
        }
    }

    /// `ls`: the sessions holding their install's last event (a missing session equals none).
    private func lastSessions() -> Set<ID> {
        Set(last.values.lazy.map(\.session).filter { $0 != .missing })
    }

    /// The KPI over the range: the sessions with an event in it, each bad when a report names it or
    /// any of its days there is unnamed, unknown when last of its install and not bad. `known`
    /// counts the bad and the not-last ones, `good` the known ones not bad.
    func sessionTotals() -> (good: Int64, known: Int64, unknown: Int64) {
        let lastSessions = self.lastSessions()
        var unnamedSessions: [ID: Bool] = [:]
        for (key, unnamed) in days { unnamedSessions[key.session] = (unnamedSessions[key.session] ?? false) || unnamed }
        var totals: (good: Int64, known: Int64, unknown: Int64) = (0, 0, 0)
        for (session, unnamed) in unnamedSessions {
            let known = session != .missing
            let bad = unnamed || (known && reported.contains(session))
            let isLast = known && lastSessions.contains(session)
            if !bad && !isLast { totals.good += 1 }
            if bad || !isLast { totals.known += 1 }
            if !bad && isLast { totals.unknown += 1 }
        }
        return totals
    }

    /// The rows of `sd`, sessions numbered (the statement after `sd` only partitions by them),
    /// in no particular order.
    func rows() -> [(session: Int64, day: Int64, bad: Bool, last: Bool)] {
        let lastSessions = self.lastSessions()
        var numbers: [ID: Int64] = [:]
        var rows: [(session: Int64, day: Int64, bad: Bool, last: Bool)] = []
        rows.reserveCapacity(days.count)
        for (key, unnamed) in days {
            let number: Int64
            if let known = numbers[key.session] {
                number = known
            } else {
                number = Int64(numbers.count)
                numbers[key.session] = number
            }
            let known = key.session != .missing
            rows.append((number, key.day, unnamed || (known && reported.contains(key.session)), known && lastSessions.contains(key.session)))
        }
        return rows
    }
}

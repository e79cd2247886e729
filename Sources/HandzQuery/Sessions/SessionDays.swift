import HandzAnalyticsCore

/// The `sd(session, day, bad, lst)` relation of a `session_share` with a session key (crash-free
/// sessions, CH33 §5.2 Quality, §6.11, §7.1), built from one pass over every stored event in any
/// order: what `EventQuerySQLBuilder.sessionDays` computes in SQL with
/// three sorts of all events (`rep`, `ls`, `sb`), here with three hash tables.
///
/// - `rep`: the sessions a report names, at any time (a crash is reported on the next launch).
/// - `ls`: each install's session holding its last event by (time, id), at any time.
/// - `sb`: each (session, day) with an event in [from, to), day = ⌊(t − from) / 24 h⌋; `unnamed`
///   when a report without the key is among that day's events.
/// - a row is `bad` when unnamed or its session is in `rep`, `lst` when its session is in `ls`.
///
/// Ids are compared as SQL compares them: a missing id (NULL) equals nothing but groups with
/// the other missing ones; an id a store keeps as text (not a canonical UUID) equals only the
/// same text.
public struct SessionDays {
    /// An id as the store holds it.
    public enum ID: Hashable {
        case uuid(UUIDWords)
        case text(String)
        case missing
        /// An id the column store keys (`HandzColumnStore.TextKeys`: one key per distinct text);
        /// a reader uses either keys or the other cases, never both.
        case key(UInt64)
    }

    /// An install's event that is last by (time, id) so far, and its session's number.
    struct Last {
        var timeMs: Int64
        var eventID: UUIDWords
        var session: Int32
    }

    let fromMs: Int64
    let toMs: Int64

    // Every id (install, session or a report's named session) is numbered on first sight, so the
    // tables below are arrays and one packed-key table (``WordPairTable``), not dictionaries of
    // enums.
    private var uuidNumbers = WordPairTable()
    /// ``ID/key(_:)`` keys below its count → number (−1 none yet): an array for the column
    /// store's dense UUID codes, which would otherwise miss the cache in the hash table.
    private var denseKeyNumbers: [Int32]
    private var textNumbers: [String: Int32] = [:]
    private var missingNumber: Int32?
    /// By id number: named by a report (`rep`); the install's last event, when the id is an
    /// install's (`ls`: its session).
    private var reported: [Bool] = []
    private var last: [Last?] = []
    /// (session number << 32 | day) → 1 when unnamed (`sb`).
    private var days: WordPairTable

    /// `denseKeysBelow`: ``ID/key(_:)`` keys under it are numbered through an array of that size.
    /// `expectedSessionDays`: the (session, day) pairs expected in the range, to size their table once.
    public init(fromMs: Int64, toMs: Int64, denseKeysBelow: Int = 0, expectedSessionDays: Int = 1 << 16) {
        self.fromMs = fromMs
        self.toMs = toMs
        denseKeyNumbers = Array(repeating: -1, count: denseKeysBelow)
        days = WordPairTable(capacity: max(expectedSessionDays, 16))
    }

    /// The id's number, given on first sight.
    private mutating func number(_ id: ID) -> Int32 {
        let next = Int32(reported.count)
        switch id {
        case .uuid(let words):
            if let known = uuidNumbers.value(words.high, words.low) { return known }
            uuidNumbers.set(words.high, words.low, next)
        case .key(let key) where key < UInt64(denseKeyNumbers.count):
            let known = denseKeyNumbers[Int(key)]
            if known >= 0 { return known }
            denseKeyNumbers[Int(key)] = next
        case .key(let key):
            // In the same table under a high word no UUID of version 4 or 7 has (version 15).
            if let known = uuidNumbers.value(.max, key) { return known }
            uuidNumbers.set(.max, key, next)
        case .text(let text):
            if let known = textNumbers[text] { return known }
            textNumbers[text] = next
        case .missing:
            if let missingNumber { return missingNumber }
            missingNumber = next
        }
        reported.append(false)
        last.append(nil)
        return next
    }

    /// One stored event. `isReport`: it matches the query's `match`; `named`: the session its key
    /// names (nil when absent, or when it is not a report).
    public mutating func add(install: ID, session: ID, timeMs: Int64, eventID: UUIDWords, isReport: Bool, named: ID?) {
        if isReport, let named { reported[Int(number(named))] = true }
        let sessionNumber = number(session)
        noteLast(install: install, Last(timeMs: timeMs, eventID: eventID, session: sessionNumber))
        guard timeMs >= fromMs, timeMs < toMs else { return }
        let day = UInt64((timeMs - fromMs) / EventQuery.dayMs)
        let unnamed = isReport && named == nil
        if unnamed || days.value(UInt64(sessionNumber), day) == nil { days.set(UInt64(sessionNumber), day, unnamed ? 1 : 0) }
    }

    /// One row of the session rollup (`analytic_session_days`): the session has events on this UTC
    /// day, the last of them at (`lastTimeMs`, `lastEventID`). With `fromMs` and `toMs` on UTC
    /// midnights, the rollup's rows and the reports (``addReport(session:timeMs:named:)``) give the
    /// state that ``add(install:session:timeMs:eventID:isReport:named:)`` gives from every event.
    public mutating func addSessionDay(install: ID, session: ID, utcDay: Int64, lastTimeMs: Int64, lastEventID: UUIDWords) {
        let sessionNumber = number(session)
        noteLast(install: install, Last(timeMs: lastTimeMs, eventID: lastEventID, session: sessionNumber))
        let dayStart = utcDay * EventQuery.dayMs
        guard dayStart >= fromMs, dayStart < toMs else { return }
        let day = UInt64((dayStart - fromMs) / EventQuery.dayMs)
        if days.value(UInt64(sessionNumber), day) == nil { days.set(UInt64(sessionNumber), day, 0) }
    }

    /// Keeps `candidate` as the install's last event when it comes after the one kept so far.
    private mutating func noteLast(install: ID, _ candidate: Last) {
        let installNumber = Int(number(install))
        if let previous = last[installNumber], (previous.timeMs, previous.eventID) >= (candidate.timeMs, candidate.eventID) { return }
        last[installNumber] = candidate
    }

    /// One report (an event matching the query's `match`), after every rollup row: a named session
    /// is bad; a report without the key makes its own session's day bad.
    public mutating func addReport(session: ID, timeMs: Int64, named: ID?) {
        if let named {
            reported[Int(number(named))] = true
            return
        }
        guard timeMs >= fromMs, timeMs < toMs else { return }
        days.set(UInt64(number(session)), UInt64((timeMs - fromMs) / EventQuery.dayMs), 1)
    }

    /// `ls` by session number: the sessions holding their install's last event (a missing
    /// session equals none).
    private func lastSessions() -> [Bool] {
        var isLast = Array(repeating: false, count: reported.count)
        for entry in last { if let entry, entry.session != missingNumber { isLast[Int(entry.session)] = true } }
        return isLast
    }

    /// The KPI over the range: the sessions with an event in it, each bad when a report names it or
    /// any of its days there is unnamed, unknown when last of its install and not bad. `known`
    /// counts the bad and the not-last ones, `good` the known ones not bad.
    public func sessionTotals() -> (good: Int64, known: Int64, unknown: Int64) {
        let isLast = lastSessions()
        // By session number: −1 no day in range, else 1 when any of its days is unnamed.
        var unnamedSessions = [Int8](repeating: -1, count: reported.count)
        days.forEach { session, _, unnamed in unnamedSessions[Int(session)] = max(unnamedSessions[Int(session)], Int8(unnamed)) }
        var totals: (good: Int64, known: Int64, unknown: Int64) = (0, 0, 0)
        for (session, unnamed) in unnamedSessions.enumerated() where unnamed >= 0 {
            let known = Int32(session) != missingNumber
            let bad = unnamed == 1 || (known && reported[session])
            let isLastSession = known && isLast[session]
            if !bad && !isLastSession { totals.good += 1 }
            if bad || !isLastSession { totals.known += 1 }
            if !bad && isLastSession { totals.unknown += 1 }
        }
        return totals
    }

    /// The rows of `sd`, sessions by number (the statement after `sd` only partitions by them),
    /// in no particular order.
    func rows() -> [(session: Int64, day: Int64, bad: Bool, last: Bool)] {
        let isLast = lastSessions()
        var rows: [(session: Int64, day: Int64, bad: Bool, last: Bool)] = []
        rows.reserveCapacity(days.count)
        days.forEach { session, day, unnamed in
            let known = Int32(session) != missingNumber
            rows.append((Int64(session), Int64(day), unnamed == 1 || (known && reported[Int(session)]), known && isLast[Int(session)]))
        }
        return rows
    }
}

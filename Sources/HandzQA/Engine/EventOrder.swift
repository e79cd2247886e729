/// The log's events in rule order: per install and per session, by (`event_time_utc`,
/// `event_id`) — the total order the funnels use (HandzQuery docs, "Funnel semantics"). Retried lines
/// (the same `event_id` twice) are collapsed to one, as the store keeps one. Units (installs,
/// sessions) come in the order of their first event, whatever order the events were read in.
struct EventOrder {
    /// Event indices grouped by install, each group in time order.
    var byInstall: [Int32] = []
    var installRanges: [Range<Int>] = []
    /// The same events grouped by session (stable, so each session stays in time order).
    var bySession: [Int32] = []
    var sessionRanges: [Range<Int>] = []
    var duplicates = 0

    init(_ log: QAEventLog) {
        let count = log.count
        // Counting sort by install, then a comparison sort inside each (small) install.
        let installs = log.identifiers.count
        var starts = Array(repeating: 0, count: installs + 1)
        for index in 0..<count { starts[Int(log.install[index]) + 1] += 1 }
        for id in 0..<installs { starts[id + 1] += starts[id] }
        var grouped = Array(repeating: Int32(0), count: count)
        var next = starts
        for index in 0..<count {
            let id = Int(log.install[index])
            grouped[next[id]] = Int32(index)
            next[id] += 1
        }
        byInstall.reserveCapacity(count)
        for id in 0..<installs where starts[id] < starts[id + 1] {
            var events = Array(grouped[starts[id]..<starts[id + 1]])
            events.sort { a, b in
                let (x, y) = (Int(a), Int(b))
                if log.time[x] != log.time[y] { return log.time[x] < log.time[y] }
                if log.idHigh[x] != log.idHigh[y] { return log.idHigh[x] < log.idHigh[y] }
                return log.idLow[x] < log.idLow[y]
            }
            let first = byInstall.count
            var previous: Int32 = -1
            for event in events {
                if previous >= 0, log.idHigh[Int(previous)] == log.idHigh[Int(event)], log.idLow[Int(previous)] == log.idLow[Int(event)] {
                    duplicates += 1
                    continue
                }
                byInstall.append(event)
                previous = event
            }
            installRanges.append(first..<byInstall.count)
        }
        // Stable counting sort of the ordered events by session.
        var sessionStarts = Array(repeating: 0, count: installs + 1)
        for event in byInstall { sessionStarts[Int(log.session[Int(event)]) + 1] += 1 }
        for id in 0..<installs { sessionStarts[id + 1] += sessionStarts[id] }
        bySession = Array(repeating: 0, count: byInstall.count)
        var cursor = sessionStarts
        for event in byInstall {
            let id = Int(log.session[Int(event)])
            bySession[cursor[id]] = event
            cursor[id] += 1
        }
        for id in 0..<installs where sessionStarts[id] < sessionStarts[id + 1] {
            sessionRanges.append(sessionStarts[id]..<sessionStarts[id + 1])
        }
        // Units in the order of their first event (then their id's text), not of first sight: a
        // report, and which violations a limit shows, must not depend on the order the reader
        // gave the events in (a file's lines, the log's rowids, the column store's chunks).
        func unitOrder(_ events: [Int32]) -> (Range<Int>, Range<Int>) -> Bool {
            { a, b in
                let (x, y) = (Int(events[a.lowerBound]), Int(events[b.lowerBound]))
                if log.time[x] != log.time[y] { return log.time[x] < log.time[y] }
                if log.idHigh[x] != log.idHigh[y] { return log.idHigh[x] < log.idHigh[y] }
                if log.idLow[x] != log.idLow[y] { return log.idLow[x] < log.idLow[y] }
                return log.identifiers.text(log.install[x]) + "\u{0}" + log.identifiers.text(log.session[x])
                    < log.identifiers.text(log.install[y]) + "\u{0}" + log.identifiers.text(log.session[y])
            }
        }
        installRanges.sort(by: unitOrder(byInstall))
        sessionRanges.sort(by: unitOrder(bySession))
    }

    /// The units of a scope, each an ordered slice of event indices.
    func units(_ scope: QAScope) -> [ArraySlice<Int32>] {
        switch scope {
        case .session: sessionRanges.map { bySession[$0] }
        case .install: installRanges.map { byInstall[$0] }
        }
    }
}


/// The `session_share` rows (``EventStatement/Part/sessions``) from the session days, computed
/// here instead of by the rest of ``EventQuerySQLBuilder/sessionShareOverDays(_:fromMs:toMs:)``:
/// the same numbers by the same rules, without loading every (session, day) into a temporary
/// table and sorting it three times (at 100,000 installs × 30 days, 4.5 s of the panel's 12 s).
/// The tests hold these rows to that statement's on the log (`CrashFreeSessionsFixtureTests`).
extension SessionDays {
    /// (days, day, good, total, left_out): per day of the range (days = 1, the days that have a
    /// session), then per window of `rollingDays` days ending with each day (days = rollingDays,
    /// the windows that have a session; day ≤ the range's last day), as the statement gives them:
    /// a window row only on a day where some session's count starts or stops — a (session, day),
    /// or the day after one stops counting — so a window that equals the day before's because
    /// nothing happened has no row (the series is the same step function). A session counts in a window
    /// when it has a day there; it is bad there when a report names it or one of its days there is
    /// unnamed; an install's last session, not bad, is left out (unknown), as in the KPI.
    public func sessionShareRows(rollingDays: Int64) -> [ResultRow] {
        let lastDay = Int((toMs - fromMs - 1) / EventQuery.dayMs)
        let span = Int(rollingDays) - 1
        var entries: [(session: Int32, day: Int32, bad: Bool, last: Bool)] = rows().map { (Int32($0.session), Int32($0.day), $0.bad, $0.last) }
        entries.sort { ($0.session, $0.day) < ($1.session, $1.day) }

        // Per day: (good, total, left_out, seen).
        var daily = Array(repeating: (good: Int64(0), total: Int64(0), leftOut: Int64(0), seen: false), count: lastDay + 1)
        // Per window end, +1/−1 steps: sessions, bad sessions, last sessions, last bad sessions.
        var steps = Array(repeating: (sessions: Int64(0), bad: Int64(0), last: Int64(0), lastBad: Int64(0)), count: lastDay + Int(rollingDays) + 2)
        // The days the statement has a step row on (its `steps`, before they are summed).
        var stepped = Array(repeating: false, count: steps.count)
        var start = 0
        while start < entries.count {
            var end = start
            while end < entries.count && entries[end].session == entries[start].session { end += 1 }
            let isLast = entries[start].last
            // The windows each day reaches, [day, day + span], merged; the same for the bad days.
            var covered: (from: Int, through: Int)?
            var badCovered: (from: Int, through: Int)?
            func close(_ interval: (from: Int, through: Int), bad: Bool) {
                if bad {
                    steps[interval.from].bad += 1; steps[interval.through + 1].bad -= 1
                    if isLast { steps[interval.from].lastBad += 1; steps[interval.through + 1].lastBad -= 1 }
                } else {
                    steps[interval.from].sessions += 1; steps[interval.through + 1].sessions -= 1
                    if isLast { steps[interval.from].last += 1; steps[interval.through + 1].last -= 1 }
                }
            }
            var lastBadDay: Int?
            for index in start..<end {
                let entry = entries[index]
                let day = Int(entry.day)
                // The statement's rows: each (session, day) owns the windows up to the session's
                // next day or `span` days on, and its bad windows up to `span` days after the last bad day.
                let nextDay = index + 1 < end ? Int(entries[index + 1].day) : nil
                let owned = nextDay.map { $0 <= day + span ? $0 - 1 : day + span } ?? day + span
                if entry.bad { lastBadDay = day }
                stepped[day] = true
                stepped[owned + 1] = true
                if let bad = lastBadDay, bad + span >= day { stepped[min(bad + span, owned) + 1] = true }
                daily[day].seen = true
                if !entry.bad && !entry.last { daily[day].good += 1 }
                if entry.bad || !entry.last { daily[day].total += 1 }
                if !entry.bad && entry.last { daily[day].leftOut += 1 }
                if let open = covered, day <= open.through + 1 {
                    covered = (open.from, day + span)
                } else {
                    if let open = covered { close(open, bad: false) }
                    covered = (day, day + span)
                }
                if entry.bad {
                    if let open = badCovered, day <= open.through + 1 {
                        badCovered = (open.from, day + span)
                    } else {
                        if let open = badCovered { close(open, bad: true) }
                        badCovered = (day, day + span)
                    }
                }
            }
            if let open = covered { close(open, bad: false) }
            if let open = badCovered { close(open, bad: true) }
            start = end
        }

        var result: [ResultRow] = []
        for (day, figures) in daily.enumerated() where figures.seen {
            result.append(Self.row(1, day, figures.good, figures.total, figures.leftOut))
        }
        var running = (sessions: Int64(0), bad: Int64(0), last: Int64(0), lastBad: Int64(0))
        for day in 0...lastDay {
            running.sessions += steps[day].sessions
            running.bad += steps[day].bad
            running.last += steps[day].last
            running.lastBad += steps[day].lastBad
            guard running.sessions > 0, stepped[day] else { continue }
            let unknown = running.last - running.lastBad
            result.append(Self.row(rollingDays, day, running.sessions - running.bad - unknown, running.sessions - unknown, unknown))
        }
        return result
    }

    private static func row(_ days: Int64, _ day: Int, _ good: Int64, _ total: Int64, _ leftOut: Int64) -> ResultRow {
        let integers: [Int64?] = [days, Int64(day), good, total, leftOut]
        return ResultRow(integers: integers, texts: integers.map { $0.map(String.init) })
    }
}

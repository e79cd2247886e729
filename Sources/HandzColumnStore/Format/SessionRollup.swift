import HandzAnalyticsCore

/// The per-session rollup written at sealing (issue 33 §2, "rollups … per session, built when
/// chunks are sealed"): for each UTC day, each (install, session) with an event that day and the
/// time and id of its last one there. Crash-free sessions (CH33 §5.2 Quality, §6.11, §7.1) needs
/// exactly that of every event of all time; the rollup holds about one row per twelve events.
///
/// It is stored as ordinary chunks under a reserved event name, with the install, session, event
/// time and event id columns, so writing, merging, checking and deleting them is the event
/// chunks' code. Parts are merged like the events' and then deduplicated (`deduplicated(_:)`);
/// a reader still takes the latest row of a pair, so an undeduplicated part is merely larger.
public enum SessionRollup {
    /// Not a catalogued event name: those are `snake_case` starting with a letter.
    public static let eventName = "_sessions"

    /// Collects the rollup's rows as the sealer reads events, by UTC day. Pure.
    struct Builder: Sendable {
        struct Key: Hashable {
            var day: Int64
            /// ``ChunkBuilder``'s text cells: a flagged UUID code or a string code; 0 absent.
            var install: UInt64
            var session: UInt64
        }
        struct Last {
            var timeMs: Int64
            var eventID: UUIDWords
        }
        private(set) var sessions: [Key: Last] = [:]

        var isEmpty: Bool { sessions.isEmpty }

        mutating func note(day: Int64, install: UInt64, session: UInt64, timeMs: Int64, eventID: UUIDWords) {
            let key = Key(day: day, install: install, session: session)
            if let known = sessions[key], (known.timeMs, known.eventID) >= (timeMs, eventID) { return }
            sessions[key] = Last(timeMs: timeMs, eventID: eventID)
        }

        /// One chunk builder per day, in day order; the collected rows are then let go.
        mutating func takeBuilders() -> [ChunkBuilder] {
            var byDay: [Int64: ChunkBuilder] = [:]
            for (key, last) in sessions {
                var builder = byDay.removeValue(forKey: key.day) ?? ChunkBuilder(eventName: SessionRollup.eventName, day: key.day)
                builder.addRow(timeMs: last.timeMs, receivedMs: 0, eventID: last.eventID)
                builder.setTextCell(ColumnName.installID, key.install)
                builder.setTextCell(ColumnName.sessionID, key.session)
                byDay[key.day] = builder
            }
            sessions = [:]
            return byDay.keys.sorted().map { byDay[$0]! }
        }
    }

    /// Merged parts' columns with one row per (install, session): its latest. The rows are in the
    /// chunk order (install, then time, then id), so within an install's run the last row of a
    /// session is its latest.
    static func deduplicated(_ columns: [Column]) -> [Column] {
        guard case .codes(let installs)? = columns.first(where: { $0.name == ColumnName.installID })?.values else { return columns }
        let sessions: [UInt32]
        if case .codes(let codes)? = columns.first(where: { $0.name == ColumnName.sessionID })?.values {
            sessions = codes
        } else {
            sessions = Array(repeating: 0, count: installs.count)
        }
        var kept: [Int] = []
        kept.reserveCapacity(installs.count)
        var start = 0
        while start < installs.count {
            var end = start + 1
            while end < installs.count && installs[end] == installs[start] { end += 1 }
            // The install's rows: keep each session's last.
            var seen = Set<UInt32>()
            var run: [Int] = []
            for row in stride(from: end - 1, through: start, by: -1) where seen.insert(sessions[row]).inserted { run.append(row) }
            kept += run.reversed()
            start = end
        }
        guard kept.count < installs.count else { return columns }
        return columns.map { Column(name: $0.name, type: $0.type, values: $0.values.gathered(kept)) }
    }
}

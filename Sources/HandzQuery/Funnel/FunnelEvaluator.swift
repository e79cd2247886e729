import HandzAnalyticsCore

/// Computes a funnel's result rows from the funnel's events — the same ``FunnelRow``s, by the
/// same rules (``FunnelQuery``), as the SQL of ``FunnelSQLBuilder``. Pure: rows in, rows out.
///
/// Why it exists: on the embedded SQLite store the SQL needs one sort per step (its running
/// windows), about 3 s per million events each; this reads the funnel's events once, in any
/// order (``FunnelSQLBuilder/eventsSQL(_:)``), groups them by actor, and walks each actor's
/// chains in memory — linear in the events after a per-actor sort. `handz-analytics funnel --db`
/// uses it; `sql funnel --dialect sqlite` prints the SQL, and the tests and the engine-agreement
/// check hold the two to the same numbers.
///
/// Memory: 32 bytes per funnel event in the range plus one key and array per actor; ``report()``
/// then works on one actor at a time (a sorted copy of its events and a pointer table).
public struct FunnelEvaluator {
    public let query: FunnelQuery
    let stepCount: Int
    /// Interned breakdown values: an event stores an index, not a string (−1: null).
    var breakdownValues: [String] = []
    var breakdownIndex: [String: Int32] = [:]
    var actors: [String: [Event]] = [:]

    /// One funnel event: its place in the total order and the steps it matches (bit k−1: step k).
    struct Event {
        var timeMs: Int64
        var idHigh: UInt64
        var idLow: UInt64
        var steps: UInt32
        var breakdown: Int32

        /// The total order of CH33 analysis: (event_time_utc, event_id), the id compared as bytes.
        static func before(_ a: Event, _ b: Event) -> Bool {
            if a.timeMs != b.timeMs { return a.timeMs < b.timeMs }
            if a.idHigh != b.idHigh { return a.idHigh < b.idHigh }
            return a.idLow < b.idLow
        }
    }

    public init(query: FunnelQuery) {
        self.query = query
        stepCount = query.funnel.steps.count
    }

    /// Adds one event of the funnel. `eventID` is the stored event_id (16 bytes; the tie-break,
    /// compared as bytes like SQLite compares BLOBs); `steps` has bit k−1 set when the event
    /// matches step k; `breakdown` is the breakdown property's value (nil without a breakdown, or
    /// when the event lacks it).
    public mutating func add(actor: String, timeMs: Int64, eventID: [UInt8], steps: UInt32, breakdown: String?) {
        var high: UInt64 = 0, low: UInt64 = 0
        for offset in 0..<16 {
            let byte = UInt64(offset < eventID.count ? eventID[offset] : 0)
            if offset < 8 { high = high << 8 | byte } else { low = low << 8 | byte }
        }
        actors[actor, default: []].append(Event(timeMs: timeMs, idHigh: high, idLow: low, steps: steps, breakdown: intern(breakdown)))
    }

    mutating func intern(_ value: String?) -> Int32 {
        guard let value else { return -1 }
        if let index = breakdownIndex[value] { return index }
        let index = Int32(breakdownValues.count)
        breakdownValues.append(value)
        breakdownIndex[value] = index
        return index
    }

    /// The report: every actor's reported chain, counted per step overall and, with a
    /// breakdown, per value of the chain's entry event (the chains are the same either way; the
    /// breakdown only labels them).
    public func report() -> FunnelReport {
        var overall = StepDeltas(stepCount: stepCount)
        var buckets: [Int32: StepDeltas] = [:]
        for (_, unordered) in actors {
            guard let chain = bestChain(unordered.sorted(by: Event.before)) else { continue }
            overall.add(chain.times)
            if query.breakdown != nil { buckets[chain.breakdown, default: StepDeltas(stepCount: stepCount)].add(chain.times) }
        }
        let breakdownRows = query.breakdown.map { _ in
            buckets.flatMap { bucket, deltas in deltas.rows(breakdown: bucket >= 0 ? breakdownValues[Int(bucket)] : nil) }
        }
        return FunnelReport(query: query, overall: overall.rows(breakdown: nil), breakdownRows: breakdownRows)
    }

    /// Per step, the milliseconds from the previous step of every chain that reaches it.
    struct StepDeltas {
        var perStep: [[Int64]]

        init(stepCount: Int) { perStep = Array(repeating: [], count: stepCount) }

        mutating func add(_ times: [Int64]) {
            perStep[0].append(0)
            for k in 1..<times.count { perStep[k].append(times[k] - times[k - 1]) }
        }

        /// One row per step some chain reaches, as the SQL returns them.
        func rows(breakdown: String?) -> [FunnelRow] {
            perStep.enumerated().filter { !$0.element.isEmpty }.map { offset, values in
                FunnelRow(breakdown: breakdown, step: offset + 1, actors: Int64(values.count), medianMs: offset == 0 ? nil : Median.lower(values))
            }
        }
    }

    /// The reported chain of one actor (events in the total order): the highest level over its
    /// entries, the earliest entry on ties; nil when it has no entry.
    func bestChain(_ events: [Event]) -> (times: [Int64], breakdown: Int32)? {
        // next[i * stepCount + k]: the first event after i that matches step k + 1 (−1: none).
        // Built backwards in one pass, so each chain step is one lookup: linear per actor.
        var next = [Int32](repeating: -1, count: events.count * stepCount)
        var seen = [Int32](repeating: -1, count: stepCount)
        for index in stride(from: events.count - 1, through: 0, by: -1) {
            for k in 0..<stepCount { next[index * stepCount + k] = seen[k] }
            for k in 0..<stepCount where events[index].steps & (1 << UInt32(k)) != 0 { seen[k] = Int32(index) }
        }
        var best: (times: [Int64], breakdown: Int32)?
        for (index, entry) in events.enumerated()
        where entry.steps & 1 != 0 && entry.timeMs >= query.fromMs && entry.timeMs < query.toMs {
            var times = [entry.timeMs]
            var position = index
            let deadline = entry.timeMs &+ query.windowMs
            for k in 1..<stepCount {
                let candidate = next[position * stepCount + k]
                // The first match after the previous step is the greedy choice; when it is past
                // the window, every later one is too, and the chain ends.
                guard candidate >= 0, events[Int(candidate)].timeMs <= deadline else { break }
                position = Int(candidate)
                times.append(events[position].timeMs)
            }
            if times.count > (best?.times.count ?? 0) {
                best = (times, entry.breakdown)
                if times.count == stepCount { break }
            }
        }
        return best
    }
}

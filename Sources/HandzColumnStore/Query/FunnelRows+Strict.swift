import HandzAnalyticsCore
import HandzQuery

extension FunnelRows {
    /// The rows a strict-order funnel needs, without the breakers that say nothing more.
    ///
    /// Strict order (issue 35 §3; HandzQuery documentation, "Funnel semantics": step k+1 is the
    /// actor's very next event) reads every event, and most of them match no step and no
    /// success: "breakers", mask 0. A breaker changes a chain only by standing between two of
    /// its actor's matched rows — the chain walk asks whether the row right after a step is the
    /// next step (`FunnelEvaluator.chain(from:)`) and looks for successes among matched rows only.
    /// So one breaker between two consecutive matched rows says all that every breaker there
    /// says, and a breaker before an actor's first matched row or after its last says nothing.
    /// This keeps every matched row and, in each gap between an actor's consecutive matched rows
    /// (in the total order: time, then id), the first breaker by part and row: the evaluator
    /// reports the same from a fraction of the rows. Measured on 7.28 M events (BENCHMARKS,
    /// "Analysts' insights"): with a breakdown, where each row reaches the evaluator with its
    /// label, 0.71× the time; without one no faster (0.97×) — the search for each breaker's gap
    /// costs what placing it cost.
    ///
    /// Returns the rows unchanged where they take the merge (keys past ``KeyRanks/limit``: text
    /// ids, users) or carry linked values (the handoff and keyed funnels).
    func collapsingBreakers() -> FunnelRows {
        let largestKey = parts.map { $0.keys.last ?? 0 }.max() ?? 0
        guard largestKey < Self.largestCountedKey, parts.allSatisfy({ $0.values.isEmpty }) else { return self }
        // Each actor's matched rows, placed by actor in the total order: their (time, id).
        let matched = FunnelRows(parts: ParallelWork.map(parts) { $0.keeping(matchedAnd: []) })
        let matchedTotal = matched.parts.reduce(0) { $0 + $1.keys.count }
        let (ranks, starts) = matched.actorPlaces(largestKey: largestKey)
        let matchedParts = matched.parts
        let stamps = matched.place(ranks, starts: starts, total: matchedTotal,
                                   row: { part, row, _ in Stamp(timeMs: matchedParts[part].times[row], id: matchedParts[part].ids[row]) },
                                   before: { $0 < $1 })
        // Per part, on both cores: its breakers that fall in a gap, the first of each run of
        // rows in the same gap (a part is in actor and time order, so such rows are adjacent).
        let candidates = ParallelWork.map(parts) { part -> [(gap: Int32, row: Int32)] in
            var found: [(gap: Int32, row: Int32)] = []
            var lastGap = -1
            for row in part.keys.indices where part.steps[row] == 0 {
                guard let actor = ranks.rankIfPresent(part.keys[row]) else { continue }
                let (first, end) = (starts[actor], starts[actor + 1])
                guard end - first > 1 else { continue }
                // How many of the actor's matched rows come before this one.
                let stamp = Stamp(timeMs: part.times[row], id: part.ids[row])
                var (low, high) = (first, end)
                while low < high {
                    let middle = (low + high) / 2
                    if stamps[middle] < stamp { low = middle + 1 } else { high = middle }
                }
                guard low > first, low < end, low - 1 != lastGap else { continue }
                lastGap = low - 1
                found.append((Int32(lastGap), Int32(row)))
            }
            return found
        }
        // The first breaker of each gap, by part then row (the same choice on every run); each
        // part's kept breakers in row order.
        var taken = [Bool](repeating: false, count: matchedTotal)
        let kept: [[Int32]] = candidates.map { found in
            found.compactMap { gap, row in
                guard !taken[Int(gap)] else { return nil }
                taken[Int(gap)] = true
                return row
            }
        }
        return FunnelRows(parts: ParallelWork.map(Array(zip(parts, kept))) { part, breakers in part.keeping(matchedAnd: breakers) })
    }

    /// A row's place in the total order (time, then id as bytes).
    struct Stamp: Sendable, Comparable {
        var timeMs: Int64
        var id: UUIDWords

        @inline(__always) static func < (a: Stamp, b: Stamp) -> Bool {
            a.timeMs != b.timeMs ? a.timeMs < b.timeMs : a.id < b.id
        }
    }
}

extension FunnelRows.Part {
    /// Its matched rows (a step or success bit set) and the rows `breakers` (ascending), in
    /// their order — so still in actor order — with their breakdown labels and linked values as
    /// they were (read through `rows`).
    func keeping(matchedAnd breakers: [Int32]) -> FunnelRows.Part {
        var kept = FunnelRows.Part(labels: labels, values: values, capacity: steps.reduce(breakers.count) { $0 + ($1 != 0 ? 1 : 0) })
        var next = 0
        for row in keys.indices {
            if steps[row] == 0 {
                guard next < breakers.count, breakers[next] == Int32(row) else { continue }
                next += 1
            }
            kept.add(actorKey: keys[row], timeMs: times[row], eventID: ids[row], steps: steps[row], row: rows[row])
        }
        return kept
    }
}

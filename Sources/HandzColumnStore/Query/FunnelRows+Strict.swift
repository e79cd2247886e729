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
        collapsingBreakers(partChunks: Array(parts.indices), breakerChunks: []) { _, _ in BreakerCandidates() } ?? self
    }

    /// The same, with the rows of `breakerChunks` — chunks whose every row is a breaker: no
    /// step, success or exclusion names their event — never made parts: `search` looks for each
    /// chunk's candidates in place, in its decoded columns, given the matched rows' stamps, and
    /// only the breakers kept become rows. A strict F0 reads 7.28 M events of which about a
    /// quarter match; the breakers' parts (five arrays of every row, then their copies by
    /// `keeping`) were a quarter of its time (perf). Chunk numbers order the choice of the first
    /// breaker of a gap as the parts' order does: `partChunks[part]` is a part's, and a
    /// breaker chunk's rows must be in its part's order (actor, time, id: a chunk's own order,
    /// per install).
    ///
    /// nil where the collapse does not apply (text keys, linked values): the caller then makes
    /// the breaker chunks' parts and hands every row over.
    func collapsingBreakers(partChunks: [Int], breakerChunks: [Int], dayBudgetBytes: Int = DayGaps.budgetBytes,
                            search: @escaping @Sendable (_ chunk: Int, _ matched: MatchedStamps) throws -> BreakerCandidates) rethrows -> FunnelRows? {
        let largestKey = parts.map { $0.keys.last ?? 0 }.max() ?? 0
        guard largestKey < Self.largestCountedKey, parts.allSatisfy({ $0.values.isEmpty }) else { return nil }
        // Each actor's matched rows, placed by actor in the total order: their (time, id).
        let matched = FunnelRows(parts: ParallelWork.map(parts) { $0.keeping(matchedAnd: []) })
        let matchedTotal = matched.parts.reduce(0) { $0 + $1.keys.count }
        let (ranks, starts) = matched.actorPlaces(largestKey: largestKey)
        let matchedParts = matched.parts
        let stamps = MatchedStamps(ranks: ranks, starts: starts, stamps: matched.place(
            ranks, starts: starts, total: matchedTotal,
            row: { part, row, _ in Stamp(timeMs: matchedParts[part].times[row], id: matchedParts[part].ids[row]) },
            before: { $0 < $1 }), dayBudgetBytes: dayBudgetBytes)
        // Per part, on both cores: its breakers that fall in a gap, the first of each run of
        // rows in the same gap (a part is in actor and time order, so such rows are adjacent).
        let candidates = ParallelWork.map(parts) { part -> [(gap: Int32, row: Int32)] in
            var found: [(gap: Int32, row: Int32)] = []
            var lastGap = -1
            var cursor = GapCursor()
            for row in part.keys.indices where part.steps[row] == 0 {
                guard let gap = cursor.gap(key: part.keys[row], stamp: Stamp(timeMs: part.times[row], id: part.ids[row]), in: stamps), gap != lastGap else { continue }
                lastGap = gap
                found.append((Int32(gap), Int32(row)))
            }
            return found
        }
        let outside = try ParallelWork.map(breakerChunks) { chunk in try search(chunk, stamps) }
        // The first breaker of each gap, by chunk then row (the same choice on every run).
        var taken = [Bool](repeating: false, count: matchedTotal)
        func firstOfGaps(_ gaps: some Sequence<(Int32, Int32)>) -> [Int32] {
            gaps.compactMap { gap, row in
                guard !taken[Int(gap)] else { return nil }
                taken[Int(gap)] = true
                return row
            }
        }
        var kept = [[Int32]](repeating: [], count: parts.count)
        var keptOutside = [[Int32]](repeating: [], count: breakerChunks.count)
        let order = (partChunks.indices.map { (chunk: partChunks[$0], part: $0, outside: false) }
            + breakerChunks.indices.map { (chunk: breakerChunks[$0], part: $0, outside: true) }).sorted { $0.chunk < $1.chunk }
        for source in order {
            if source.outside {
                keptOutside[source.part] = firstOfGaps(zip(outside[source.part].gaps, outside[source.part].indices))
            } else {
                kept[source.part] = firstOfGaps(candidates[source.part].lazy.map { ($0.gap, $0.row) })
            }
        }
        let keptParts = ParallelWork.map(Array(zip(parts, kept))) { part, breakers in part.keeping(matchedAnd: breakers) }
        let outsideParts = zip(outside, keptOutside).compactMap { found, rows in rows.isEmpty ? nil : found.part(rows) }
        return FunnelRows(parts: keptParts + outsideParts)
    }

    /// The matched rows' stamps by actor (``GapCursor`` finds the gap a row falls in), and by
    /// day where that fits (``DayGaps``).
    struct MatchedStamps: Sendable {
        let ranks: KeyRanks
        /// Where each actor's stamps start (one more entry: the total).
        let starts: [Int]
        /// Each actor's stamps in order, kept only without `days` (which holds them by day).
        let stamps: [Stamp]
        let days: DayGaps?

        init(ranks: KeyRanks, starts: [Int], stamps: [Stamp], dayBudgetBytes: Int = DayGaps.budgetBytes) {
            (self.ranks, self.starts) = (ranks, starts)
            days = DayGaps(starts: starts, stamps: stamps, budgetBytes: dayBudgetBytes)
            self.stamps = days == nil ? stamps : []
        }
    }

    /// The gap (the number of the matched row right before it) a row of actor `key` at `stamp`
    /// falls in — nil before its actor's first matched row, after its last, or when its actor has
    /// none. By day (``DayGaps``) when the matched rows have their day tables; else by actor,
    /// for rows in (actor, time, id) order, as a part's and a chunk's are: the actor and a
    /// binary search once per run of an actor's rows, then a step forward per row (an actor's
    /// next rows fall in the same gap or a later one, most often the same). A row out of that
    /// order is searched afresh, so any order gives the same gaps.
    struct GapCursor {
        private var key: UInt64 = 0
        private var last = Stamp(timeMs: .max, id: UUIDWords(high: .max, low: .max))
        private var (first, end, low) = (0, 0, 0)

        @inline(__always) mutating func gap(key: UInt64, stamp: Stamp, in matched: MatchedStamps) -> Int? {
            if let days = matched.days {
                guard let actor = matched.ranks.rankIfPresent(key), let low = days.firstAtOrAfter(actor: actor, stamp: stamp) else { return nil }
                return low > matched.starts[actor] && low < matched.starts[actor + 1] ? low - 1 : nil
            }
            if key != self.key || stamp < last {
                (self.key, last) = (key, stamp)
                guard let actor = matched.ranks.rankIfPresent(key) else {
                    (first, end) = (0, 0)
                    return nil
                }
                (first, end) = (matched.starts[actor], matched.starts[actor + 1])
                guard end - first > 1 else { return nil }
                // How many of the actor's matched rows come before this one.
                var high = end
                low = first
                while low < high {
                    let middle = (low + high) / 2
                    if matched.stamps[middle] < stamp { low = middle + 1 } else { high = middle }
                }
            } else {
                last = stamp
                guard end - first > 1 else { return nil }
                while low < end && matched.stamps[low] < stamp { low += 1 }
            }
            return low > first && low < end ? low - 1 : nil
        }
    }

    /// One breaker chunk's candidates, in its row order: each the first row of a run in the
    /// same gap, with what its row becomes if it is kept.
    struct BreakerCandidates: Sendable {
        var gaps: [Int32] = []
        var keys: [UInt64] = []
        var times: [Int64] = []
        var ids: [UUIDWords] = []
        /// Each candidate's breakdown label, when the funnel has a breakdown.
        var labels: [String?]?

        var indices: Range<Int32> { 0..<Int32(gaps.count) }

        mutating func append(gap: Int, key: UInt64, timeMs: Int64, id: UUIDWords) {
            gaps.append(Int32(gap))
            keys.append(key)
            times.append(timeMs)
            ids.append(id)
        }

        /// The candidates `kept` (ascending) as a part of breakers.
        func part(_ kept: [Int32]) -> Part {
            var part = Part(labels: labels, values: [], capacity: kept.count)
            for index in kept.lazy.map(Int.init) {
                part.add(actorKey: keys[index], timeMs: times[index], eventID: ids[index], steps: 0, row: Int32(index))
            }
            return part
        }
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

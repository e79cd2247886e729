import HandzAnalyticsCore

/// The funnel modes of issue 35 §3 in the chain walk (``FunnelModes``), by the rules the SQL
/// implements (HandzQuery docs, "Funnel semantics"): strict order (step k+1 is the actor's very
/// next event), any order (the level is the number of different steps done from the entry within
/// the window, the chain's times those of reaching the 1st, 2nd, … step), exclusion steps (an
/// entry whose chain has an excluded event strictly between two steps it reached is dropped) and
/// conversion over time (one funnel per actor and UTC day of entry).
extension FunnelEvaluator {
    /// Milliseconds in a UTC day: conversion over time groups entries by `time / day`.
    public static let dayMs: Int64 = 86_400_000

    /// One actor's reported chain over every entry in range (nil: none) and, by entry day, each
    /// day's (empty unless ``FunnelQuery/byEntryDay``). Events in the total order.
    func modeChains(_ events: [Event]) -> (overall: Chain?, days: [Int32: Chain]) {
        let funnel = query.funnel
        let exclusionCount = funnel.exclusions.count
        let width = stepCount + 1 + exclusionCount
        let next = Self.nextTable(events, width: width)
        let stepMask = (UInt32(1) << UInt32(stepCount)) - 1
        let entryMask: UInt32 = funnel.order == .any ? stepMask : 1
        var overall: Chain?
        var days: [Int32: Chain] = [:]
        for (index, entry) in events.enumerated()
        where entry.steps & entryMask != 0 && entry.timeMs >= query.fromMs && entry.timeMs < query.toMs {
            guard let chain = chain(from: index, events, next, width: width) else { continue }
            // The highest level, then the earliest entry: entries come in order, so only a longer
            // chain replaces the one kept.
            if chain.times.count > (overall?.times.count ?? 0) { overall = chain }
            if query.byEntryDay {
                let day = Int32(entry.timeMs / Self.dayMs)
                if chain.times.count > (days[day]?.times.count ?? 0) {
                    var labelled = chain
                    labelled.breakdown = day
                    days[day] = labelled
                }
            }
        }
        return (overall, days)
    }

    /// The chain from the entry at `index` by the funnel's order, with its success; nil when an
    /// exclusion drops it.
    func chain(from index: Int, _ events: [Event], _ next: [Int32], width: Int) -> Chain? {
        let funnel = query.funnel
        let deadline = events[index].timeMs &+ query.windowMs
        switch funnel.order {
        case .any:
            // The first event of each step at or after the entry, within the window.
            var times: [Int64] = []
            for k in 0..<stepCount {
                let first = events[index].steps & (1 << UInt32(k)) != 0 ? Int32(index) : next[index * width + k]
                if first >= 0, events[Int(first)].timeMs <= deadline { times.append(events[Int(first)].timeMs) }
            }
            return Chain(times: times.sorted(), breakdown: events[index].breakdown)
        case .sequential, .strict:
            var positions = [index]
            for k in 1..<stepCount {
                let last = positions[positions.count - 1]
                let candidate: Int
                if funnel.order == .strict {
                    // The actor's very next event, whatever it is.
                    candidate = last + 1 < events.count && events[last + 1].steps & (1 << UInt32(k)) != 0 ? last + 1 : -1
                } else {
                    candidate = Int(next[last * width + k])
                }
                guard candidate >= 0, events[candidate].timeMs <= deadline else { break }
                positions.append(candidate)
            }
            for (offset, exclusion) in funnel.exclusions.enumerated() {
                let bit = stepCount + 1 + offset
                for gap in exclusion.fromStep..<exclusion.toStep where gap < positions.count {
                    let excluded = next[positions[gap - 1] * width + bit]
                    if excluded >= 0 && Int(excluded) < positions[gap] { return nil }
                }
            }
            var chain = Chain(times: positions.map { events[$0].timeMs }, breakdown: events[index].breakdown)
            if successBit != nil, let after = funnel.successCondition?.afterStep, positions.count >= after {
                let candidate = next[positions[after - 1] * width + stepCount]
                if candidate >= 0, events[Int(candidate)].timeMs <= deadline {
                    chain.successMs = events[Int(candidate)].timeMs
                    chain.successAfter = after
                }
            }
            return chain
        }
    }
}

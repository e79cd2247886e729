/// Keyed single-actor funnels (``FunnelDefinition/chainKey``, F4: every step of the plan step 1
/// created, CH33 §5.1): an entry's chain takes only the actor's events that carry the entry's
/// id, the greedy rule otherwise unchanged — the SQL's running windows partitioned by (actor,
/// `ck`). The success stays the actor's: the first success event after the chain's step-s event,
/// whatever id it carries (F4's maintenance activity names no mastery plan).
extension FunnelEvaluator {
    /// The reported chain of one actor (events in the total order): over every id's chains and
    /// the entries without an id (which reach step 1 only), the highest level, then the earliest
    /// entry; nil when it has no entry in range.
    func keyedBestChain(_ events: [Event]) -> Chain? {
        let width = stepCount + (successBit != nil ? 1 : 0)
        let stepMask = (UInt32(1) << UInt32(stepCount)) - 1
        // The events of each id, in order; an entry without an id is a chain of its own.
        var byKey: [String: [Int]] = [:]
        var best: [Int]?
        func consider(_ chain: [Int]) {
            guard let current = best else { best = chain; return }
            if chain.count > current.count || (chain.count == current.count && chain[0] < current[0]) { best = chain }
        }
        for (index, event) in events.enumerated() where event.steps & stepMask != 0 {
            if event.values >= 0, let key = values[Int(event.values)].first ?? nil {
                byKey[key, default: []].append(index)
            } else if event.steps & 1 != 0, event.timeMs >= query.fromMs, event.timeMs < query.toMs {
                consider([index])
            }
        }
        for positions in byKey.values {
            let own = positions.map { position in
                var event = events[position]
                event.steps &= stepMask
                return event
            }
            let next = Self.nextTable(own, width: stepCount)
            for (index, entry) in own.enumerated() where entry.steps & 1 != 0 && entry.timeMs >= query.fromMs && entry.timeMs < query.toMs {
                consider(Self.greedyChain(own, next, width: stepCount, from: index, steps: stepCount, deadline: entry.timeMs &+ query.windowMs).map { positions[$0] })
            }
        }
        guard let best else { return nil }
        let entry = events[best[0]]
        var chain = Chain(times: best.map { events[$0].timeMs }, breakdown: entry.breakdown)
        if successBit != nil, let after = query.funnel.successCondition?.afterStep, best.count >= after {
            let next = Self.nextTable(events, width: width)
            let candidate = next[best[after - 1] * width + stepCount]
            if candidate >= 0, events[Int(candidate)].timeMs <= entry.timeMs &+ query.windowMs {
                chain.successMs = events[Int(candidate)].timeMs
                chain.successAfter = after
            }
        }
        return chain
    }
}

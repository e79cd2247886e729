import HandzAnalyticsCore

/// The chain walk of a funnel across people (HandzQuery docs, "Funnels across people") — the numbers of
/// ``FunnelSQLBuilder/linkedChainCTEs(_:)``, computed in memory from the same events.
extension FunnelEvaluator {
    /// One link: the first actor's step-H event on the chain of an in-range entry.
    struct Link {
        var sender: String
        /// The earliest such entry: its time starts the link's window, its breakdown labels it.
        var entryMs: Int64
        var breakdown: Int32
        /// The link event's time and values.
        var linkMs: Int64
        var values: [String?]
    }

    /// An event of one actor, by its place in that actor's order.
    struct Located {
        var actor: String
        var position: Int
    }

    func linkedReport() -> FunnelReport {
        let funnel = query.funnel
        let senderSteps = funnel.handoffIndex!      // H
        let handoff = senderSteps + 1               // 1-based
        let properties = FunnelSQLBuilder.linkProperties(funnel)
        let branching = FunnelSQLBuilder.branchingSteps(funnel)
        let width = stepCount + (successBit == nil ? 0 : 1)
        var overall = StepDeltas(stepCount: stepCount)
        var buckets: [Int32: StepDeltas] = [:]
        func add(_ chain: Chain, from first: Int, link: Int?) {
            overall.add(chain, from: first, link: link)
            if query.breakdown != nil { buckets[chain.breakdown, default: StepDeltas(stepCount: stepCount)].add(chain, from: first, link: link) }
        }

        // Every actor's events in order, their next-step table, and the sender side: each
        // sender's reported chain over steps 1…H, and the links of every in-range entry.
        var ordered: [String: [Event]] = [:]
        var tables: [String: [Int32]] = [:]
        var links: [Link] = []
        let (grouped, starts) = eventsByActor()
        for number in actorNames.indices.sorted(by: { actorNames[$0] < actorNames[$1] }) where starts[number + 1] > starts[number] {
            let actor = actorNames[number]
            let events = Array(grouped[starts[number]..<starts[number + 1]])
            let next = Self.nextTable(events, width: width)
            ordered[actor] = events
            tables[actor] = next
            if let chain = bestChain(events, steps: senderSteps) { add(chain, from: 1, link: nil) }
            var seen = Set<Int>()
            for (index, entry) in events.enumerated()
            where entry.steps & 1 != 0 && entry.timeMs >= query.fromMs && entry.timeMs < query.toMs {
                let chain = Self.greedyChain(events, next, width: width, from: index, steps: senderSteps, deadline: entry.timeMs &+ query.windowMs)
                guard chain.count == senderSteps, let last = chain.last, seen.insert(last).inserted else { continue }
                let event = events[last]
                links.append(Link(sender: actor, entryMs: entry.timeMs, breakdown: entry.breakdown, linkMs: event.timeMs,
                                  values: event.values >= 0 ? values[Int(event.values)] : properties.map { _ in nil }))
            }
        }

        // The hand-off step's events by the id they carry.
        let handoffLink = funnel.steps[handoff - 1].link!
        let linkColumn = properties.firstIndex(of: handoffLink.property)!
        let linkedColumn = properties.firstIndex(of: handoffLink.stepProperty)!
        var byLinkedID: [String: [Located]] = [:]
        for (actor, events) in ordered {
            for (position, event) in events.enumerated() where event.steps & (1 << UInt32(handoff - 1)) != 0 {
                guard event.values >= 0, let id = values[Int(event.values)][linkColumn] else { continue }
                byLinkedID[id, default: []].append(Located(actor: actor, position: position))
            }
        }

        for (number, link) in links.enumerated() {
            // The link itself counts at step H, whether or not anyone opens it.
            overall.links[senderSteps - 1].insert(number)
            if query.breakdown != nil { buckets[link.breakdown, default: StepDeltas(stepCount: stepCount)].links[senderSteps - 1].insert(number) }
            guard let id = link.values[linkedColumn] else { continue }
            let deadline = link.entryMs &+ query.windowMs
            var byReceiver: [String: [Int]] = [:]
            for located in byLinkedID[id] ?? [] where located.actor != link.sender {
                let time = ordered[located.actor]![located.position].timeMs
                guard time >= link.linkMs, time <= deadline else { continue }
                byReceiver[located.actor, default: []].append(located.position)
            }
            for (receiver, starts) in byReceiver {
                let events = ordered[receiver]!
                let candidates = branching.contains(handoff) ? starts.sorted() : [starts.min()!]
                var best: [Int] = []
                for start in candidates {
                    let chain = extend([start], events: events, link: link, deadline: deadline, branching: branching, properties: properties)
                    if Self.better(chain, than: best) { best = chain }
                }
                var times = Array(repeating: link.entryMs, count: senderSteps)
                times[senderSteps - 1] = link.linkMs
                times += best.map { events[$0].timeMs }
                var chain = Chain(times: times, breakdown: link.breakdown)
                if let success = funnel.successCondition, best.count >= success.afterStep - senderSteps {
                    let after = best[success.afterStep - handoff]
                    chain.successMs = successTime(after: after, in: events, chain: best, link: link, deadline: deadline, properties: properties)
                    chain.successAfter = success.afterStep
                }
                add(chain, from: handoff, link: number)
            }
        }
        return FunnelReport(query: query, overall: overall.rows(breakdown: nil), breakdownRows: bucketRows(buckets))
    }

    /// The best continuation of a receiver's chain `chain` (positions of steps H+1…): the next
    /// step's first candidate after the last position, or — when a later step links to it — every
    /// candidate, keeping the chain that reaches most steps, then the earliest step by step.
    func extend(_ chain: [Int], events: [Event], link: Link, deadline: Int64, branching: Set<Int>, properties: [String]) -> [Int] {
        let handoff = query.funnel.handoffIndex! + 1
        let step = handoff + chain.count
        guard step <= stepCount else { return chain }
        let definition = query.funnel.steps[step - 1]
        var candidates: [Int] = []
        for position in (chain[chain.count - 1] + 1)..<events.count {
            let event = events[position]
            if event.timeMs > deadline { break }
            guard event.steps & (1 << UInt32(step - 1)) != 0 else { continue }
            if let required = definition.link {
                guard event.values >= 0, let value = values[Int(event.values)][properties.firstIndex(of: required.property)!],
                      value == linkedValue(required, chain: chain, events: events, link: link, properties: properties) else { continue }
            }
            candidates.append(position)
            if !branching.contains(step) { break }
        }
        var best = chain
        for candidate in candidates {
            let extended = extend(chain + [candidate], events: events, link: link, deadline: deadline, branching: branching, properties: properties)
            if Self.better(extended, than: best) { best = extended }
        }
        return best
    }

    /// The value a link or `differs` compares with: `stepProperty` on step `step`'s event.
    func linkedValue(_ link: FunnelLink, chain: [Int], events: [Event], link origin: Link, properties: [String]) -> String? {
        let column = properties.firstIndex(of: link.stepProperty)!
        let handoff = query.funnel.handoffIndex! + 1
        if link.step < handoff { return origin.values[column] }
        let event = events[chain[link.step - handoff]]
        return event.values >= 0 ? values[Int(event.values)][column] : nil
    }

    /// The first success event after `after`, within the window, whose `differs` property is
    /// present and differs from the step's (SQL's `<>`: a missing value never differs).
    func successTime(after: Int, in events: [Event], chain: [Int], link: Link, deadline: Int64, properties: [String]) -> Int64? {
        guard let successBit, let success = query.funnel.successCondition else { return nil }
        for position in (after + 1)..<events.count {
            let event = events[position]
            if event.timeMs > deadline { return nil }
            guard event.steps & successBit != 0 else { continue }
            if let differs = success.differs {
                guard event.values >= 0, let own = values[Int(event.values)][properties.firstIndex(of: differs.property)!],
                      let other = linkedValue(differs, chain: chain, events: events, link: link, properties: properties),
                      own != other else { continue }
            }
            return event.timeMs
        }
        return nil
    }

    /// More steps wins; then the earlier chain, compared step by step (positions follow the
    /// (time, event_id) order).
    static func better(_ a: [Int], than b: [Int]) -> Bool {
        if a.count != b.count { return a.count > b.count }
        return a.lexicographicallyPrecedes(b)
    }
}

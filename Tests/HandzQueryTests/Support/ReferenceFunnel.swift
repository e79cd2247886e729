import HandzAnalyticsCore
import HandzQuery

/// An independent implementation of the funnel semantics (HandzQuery docs, "Funnel semantics" and
/// "Funnels across people") as plain loops over events — no SQL, no next-step tables — to check
/// the builders' SQL and the chain walk against. Receivers' chains are found by trying every
/// chain (not by the greedy rule the SQL and the walk use), so the two readings check each other.
enum ReferenceFunnel {
    /// One reported chain: step times from step 1 (a receiver's: the link's before the hand-off),
    /// the first step it counts for, its link, its success time and bucket.
    struct Chain {
        var times: [Int64]
        var first = 1
        var link: Int?
        var successMs: Int64?
        var bucket: String?
    }

    static func run(_ events: [FixtureEvent], _ query: FunnelQuery) -> [FunnelKey: FunnelValue] {
        // Actor: the install, or the first user_id the install carried (by time, event_id).
        var userOfInstall: [String: String] = [:]
        if query.actor == .user {
            for event in events.sorted(by: before) where event.user != nil && userOfInstall[event.install] == nil {
                userOfInstall[event.install] = event.user
            }
        }
        let actorOf = { (event: FixtureEvent) in userOfInstall[event.install] ?? event.install }
        let byActor = Dictionary(grouping: events, by: actorOf).mapValues { $0.sorted(by: before) }
        let funnel = query.funnel
        let steps = funnel.steps
        let senderSteps = funnel.handoffIndex ?? steps.count
        var chains: [Chain] = []
        var links: [(bucket: String?, number: Int)] = []

        for (actor, ordered) in byActor.sorted(by: { $0.key < $1.key }) {
            var chosen: (positions: [Int], entry: FixtureEvent)?
            var linkEvents: [Int] = []
            for (entryIndex, entry) in ordered.enumerated()
            where matches(entry, steps[0]) && entry.timeMs >= query.fromMs && entry.timeMs < query.toMs {
                var positions = [entryIndex]
                // A keyed funnel (F4): every later step carries the entry's id (a missing one never links).
                let entryKey = funnel.chainKey == nil ? nil : steps[1].link.flatMap { entry.text($0.stepProperty) }
                for step in steps[1..<senderSteps] {
                    guard let next = ordered[(positions.last! + 1)...].firstIndex(where: { event in
                        guard matches(event, step), event.timeMs <= entry.timeMs + query.windowMs else { return false }
                        guard funnel.chainKey != nil, let link = step.link else { return true }
                        return entryKey != nil && event.text(link.property) == entryKey
                    })
                    else { break }
                    positions.append(next)
                }
                if chosen == nil || positions.count > chosen!.positions.count { chosen = (positions, entry) }
                if funnel.handoffIndex != nil, positions.count == senderSteps, !linkEvents.contains(positions.last!) {
                    linkEvents.append(positions.last!)
                    // The link: this step-H event, first reached from this (the earliest) entry.
                    let number = links.count
                    links.append((query.breakdown.flatMap { entry.text($0) }, number))
                    chains += receivers(of: ordered[positions.last!], sender: actor, entry: entry, link: number, byActor: byActor, query: query)
                }
            }
            guard let chosen else { continue }
            var chain = Chain(times: chosen.positions.map { ordered[$0].timeMs }, bucket: query.breakdown.flatMap { chosen.entry.text($0) })
            if funnel.handoffIndex == nil, let success = funnel.successCondition, chosen.positions.count >= success.afterStep {
                let after = chosen.positions[success.afterStep - 1]
                chain.successMs = ordered[(after + 1)...].first { matchesSuccess($0, success, among: ordered) && $0.timeMs <= chosen.entry.timeMs + query.windowMs }?.timeMs
            }
            chains.append(chain)
        }

        var out: [FunnelKey: FunnelValue] = [:]
        // The overall rows (bucket nil), then one set per breakdown value.
        let buckets: [String??] = [nil] + (query.breakdown == nil ? [] : Set(chains.map(\.bucket) + links.map(\.bucket)).map { .some($0) })
        for bucket in buckets {
            let inBucket = chains.filter { bucket == nil || $0.bucket == bucket! }
            for k in 1...steps.count + 1 {
                let reached: [(delta: Int64?, link: Int?)] = inBucket.compactMap { chain in
                    if k == steps.count + 1 {
                        guard let success = chain.successMs, let after = funnel.successCondition?.afterStep else { return nil }
                        return (success - chain.times[after - 1], chain.link)
                    }
                    guard chain.first <= k, chain.times.count >= k else { return nil }
                    return (k == 1 ? nil : chain.times[k - 1] - chain.times[k - 2], chain.link)
                }
                var linked = Set(reached.compactMap(\.link))
                if k == senderSteps, funnel.handoffIndex != nil { linked = Set(links.filter { bucket == nil || $0.bucket == bucket! }.map(\.number)) }
                guard !reached.isEmpty || !linked.isEmpty else { continue }
                let median = k == 1 ? nil : Median.lower(reached.compactMap(\.delta))
                out[FunnelKey(bucket: bucket, step: k)] = FunnelValue(actors: Int64(reached.count), medianMs: median, links: Int64(linked.count))
            }
        }
        return out
    }

    /// Every receiver of one link, with the best of all their chains: most steps, then the
    /// earliest step by step in the (time, event_id) order.
    static func receivers(of linkEvent: FixtureEvent, sender: String, entry: FixtureEvent, link: Int, byActor: [String: [FixtureEvent]],
                          query: FunnelQuery) -> [Chain] {
        let funnel = query.funnel
        let handoff = funnel.handoffIndex! + 1
        let deadline = entry.timeMs + query.windowMs
        var out: [Chain] = []
        for (receiver, ordered) in byActor.sorted(by: { $0.key < $1.key }) where receiver != sender {
            // All chains: positions of steps handoff…k, each step's event after the previous one.
            func all(_ prefix: [Int]) -> [[Int]] {
                let step = handoff + prefix.count
                guard step <= funnel.steps.count else { return [prefix] }
                let start = prefix.last.map { $0 + 1 } ?? 0
                var found: [[Int]] = [prefix]
                for position in start..<ordered.count {
                    let event = ordered[position]
                    guard matches(event, funnel.steps[step - 1]), event.timeMs <= deadline else { continue }
                    if prefix.isEmpty && event.timeMs < linkEvent.timeMs { continue }
                    if let required = funnel.steps[step - 1].link {
                        let wanted = value(required.stepProperty, step: required.step, prefix: prefix, ordered: ordered, linkEvent: linkEvent, handoff: handoff)
                        guard let own = event.text(required.property), own == wanted else { continue }
                    }
                    found += all(prefix + [position])
                }
                return found
            }
            let candidates = all([]).filter { !$0.isEmpty }
            guard let best = candidates.min(by: { a, b in a.count != b.count ? a.count > b.count : a.lexicographicallyPrecedes(b) }) else { continue }
            var times = Array(repeating: entry.timeMs, count: handoff - 1)
            times[handoff - 2] = linkEvent.timeMs
            times += best.map { ordered[$0].timeMs }
            var chain = Chain(times: times, first: handoff, link: link, bucket: query.breakdown.flatMap { entry.text($0) })
            if let success = funnel.successCondition, best.count >= success.afterStep - handoff + 1 {
                let after = best[success.afterStep - handoff]
                chain.successMs = ordered[(after + 1)...].first { event in
                    guard matchesSuccess(event, success, among: ordered), event.timeMs <= deadline else { return false }
                    guard let differs = success.differs else { return true }
                    let other = value(differs.stepProperty, step: differs.step, prefix: best, ordered: ordered, linkEvent: linkEvent, handoff: handoff)
                    guard let own = event.text(differs.property), let other else { return false }
                    return own != other
                }?.timeMs
            }
            out.append(chain)
        }
        return out
    }

    /// `property` on step `step`'s event: the link event for the first actor's steps, else the
    /// receiver's chain event.
    static func value(_ property: String, step: Int, prefix: [Int], ordered: [FixtureEvent], linkEvent: FixtureEvent, handoff: Int) -> String? {
        step < handoff ? linkEvent.text(property) : ordered[prefix[step - handoff]].text(property)
    }

    /// The total order: (event_time_utc, event_id).
    static func before(_ a: FixtureEvent, _ b: FixtureEvent) -> Bool {
        a.timeMs != b.timeMs ? a.timeMs < b.timeMs : a.eventID.lexicographicallyPrecedes(b.eventID)
    }

    static func matches(_ event: FixtureEvent, _ step: FunnelStep) -> Bool {
        step.events.contains(event.name) && step.filters.allSatisfy { filter in event.text(filter.property).map(filter.values.contains) ?? false }
    }

    static func matchesSuccess(_ event: FixtureEvent, _ success: FunnelSuccess) -> Bool {
        (success.events.isEmpty || success.events.contains(event.name))
            && success.filters.allSatisfy { filter in event.text(filter.property).map(filter.values.contains) ?? false }
    }

    /// With `first_by` (F2: a flow's first save), also the first such event of the actor (all of
    /// its events, `ordered`) with its value.
    static func matchesSuccess(_ event: FixtureEvent, _ success: FunnelSuccess, among ordered: [FixtureEvent]) -> Bool {
        guard matchesSuccess(event, success) else { return false }
        guard let property = success.firstBy else { return true }
        guard let value = event.text(property) else { return false }
        return ordered.first { matchesSuccess($0, success) && $0.text(property) == value }?.eventID == event.eventID
    }
}

import HandzAnalyticsCore
import HandzQuery

/// An independent implementation of the funnel semantics (README, "Funnel semantics") as plain
/// loops over events — no SQL — to check the builders' SQL against.
enum ReferenceFunnel {
    static func run(_ events: [FixtureEvent], _ query: FunnelQuery) -> [FunnelKey: FunnelValue] {
        // Actor: the install, or the first user_id the install carried (by time, event_id).
        var userOfInstall: [String: String] = [:]
        if query.actor == .user {
            for event in events.sorted(by: before) where event.user != nil && userOfInstall[event.install] == nil {
                userOfInstall[event.install] = event.user
            }
        }
        let byActor = Dictionary(grouping: events) { userOfInstall[$0.install] ?? $0.install }
        let steps = query.funnel.steps
        struct Chain { var level: Int; var times: [Int64]; var bucket: String? }
        var best: [Chain] = []
        for (_, unordered) in byActor {
            let ordered = unordered.sorted(by: before)
            var chosen: Chain?
            for (entryIndex, entry) in ordered.enumerated()
            where matches(entry, steps[0]) && entry.timeMs >= query.fromMs && entry.timeMs < query.toMs {
                var times = [entry.timeMs]
                var position = entryIndex
                for step in steps.dropFirst() {
                    guard let next = ordered[(position + 1)...].firstIndex(where: { matches($0, step) && $0.timeMs <= entry.timeMs + query.windowMs })
                    else { break }
                    times.append(ordered[next].timeMs)
                    position = next
                }
                if chosen == nil || times.count > chosen!.level {
                    chosen = Chain(level: times.count, times: times, bucket: query.breakdown.flatMap { entry.text($0) })
                }
            }
            if let chosen { best.append(chosen) }
        }
        var out: [FunnelKey: FunnelValue] = [:]
        // The overall rows (bucket nil), then one set per breakdown value.
        let buckets: [String??] = [nil] + (query.breakdown == nil ? [] : Set(best.map(\.bucket)).map { .some($0) })
        for bucket in buckets {
            let chains = best.filter { bucket == nil || $0.bucket == bucket! }
            for k in 1...steps.count {
                let reached = chains.filter { $0.level >= k }
                guard !reached.isEmpty else { continue }
                let median = k == 1 ? nil : Median.lower(reached.map { $0.times[k - 1] - $0.times[k - 2] })
                out[FunnelKey(bucket: bucket, step: k)] = FunnelValue(actors: Int64(reached.count), medianMs: median)
            }
        }
        return out
    }

    /// The total order: (event_time_utc, event_id).
    static func before(_ a: FixtureEvent, _ b: FixtureEvent) -> Bool {
        a.timeMs != b.timeMs ? a.timeMs < b.timeMs : a.eventID.lexicographicallyPrecedes(b.eventID)
    }

    static func matches(_ event: FixtureEvent, _ step: FunnelStep) -> Bool {
        step.events.contains(event.name) && step.filters.allSatisfy { filter in event.text(filter.property).map(filter.values.contains) ?? false }
    }
}

import HandzAnalyticsCore

/// The funnel modes of issue 35 §3 — order (`FunnelOrder`), exclusion steps (`FunnelExclusion`)
/// and conversion over time (``FunnelQuery/byEntryDay``) — and which funnels take them. One place
/// for the rules, so the SQL of every dialect, the chain walk and the column store refuse the
/// same queries with the same message.
///
/// They apply to single-actor funnels without a chain key: every ad-hoc funnel and F0, F1, F3.
/// A funnel across people (F2) or keyed by an id (F4) has its own chain rules (HandzQuery docs,
/// "Funnels across people", "One chain per id") and keeps the default.
public enum FunnelModes {
    /// The most exclusion steps one funnel may have.
    public static let maxExclusions = 4

    /// Whether `query` uses any mode beyond the default sequential funnel.
    public static func isPlain(_ query: FunnelQuery) -> Bool {
        query.funnel.order == .sequential && query.funnel.exclusions.isEmpty && !query.byEntryDay
    }

    /// The bit of exclusion `index` in an event's step mask: after the steps (bits 0…n−1) and the
    /// success (bit n).
    public static func exclusionBit(_ index: Int, steps: Int) -> UInt32 {
        UInt32(1) << UInt32(steps + 1 + index)
    }

    /// Refuses a combination the semantics do not define (`invalid_funnel`, naming no value).
    public static func check(_ query: FunnelQuery) throws(QueryError) {
        if isPlain(query) { return }
        let funnel = query.funnel
        let steps = funnel.steps.count
        guard funnel.handoffIndex == nil, funnel.chainKey == nil else {
            throw .invalidFunnel("\(funnel.id): order modes, exclusions and conversion over time are for single-actor funnels without linked steps")
        }
        if query.byEntryDay && query.breakdown != nil {
            throw .invalidBreakdown("conversion over time is by entry day; it takes no breakdown")
        }
        guard funnel.exclusions.count <= maxExclusions, steps + 1 + funnel.exclusions.count <= 32 else {
            throw .invalidFunnel("\(funnel.id): at most \(maxExclusions) exclusions, and steps plus exclusions at most 31")
        }
        for (index, exclusion) in funnel.exclusions.enumerated() {
            guard !exclusion.events.isEmpty, 1 <= exclusion.fromStep, exclusion.fromStep < exclusion.toStep, exclusion.toStep <= steps else {
                throw .invalidFunnel("\(funnel.id): exclusion \(index + 1) needs events and steps a < b within 1…\(steps)")
            }
        }
        switch funnel.order {
        case .sequential:
            break
        case .strict:
            // Nothing may fall between two steps, so nothing can be excluded there.
            guard funnel.exclusions.isEmpty else { throw .invalidFunnel("\(funnel.id): a strict funnel has nothing between its steps to exclude") }
        case .any:
            guard funnel.exclusions.isEmpty, funnel.successCondition == nil else {
                throw .invalidFunnel("\(funnel.id): a funnel in any order has no steps between which to exclude or after which to succeed")
            }
            // Disjoint steps: one event then never fills two steps, and the level is the number
            // of different steps seen.
            var seen = Set<String>()
            for step in funnel.steps {
                for event in Set(step.events) where !seen.insert(event).inserted {
                    throw .invalidFunnel("\(funnel.id): in any order, an event may be in one step only")
                }
            }
        }
    }
}

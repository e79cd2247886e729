/// A success on any event (F1: "an event after signup_success that says user_state = free") is
/// most of the store's events; a reader that can find one actor's events by index reads the
/// funnel's own events first and then only these windows (the embedded store's funnel walk,
/// `StoreAnalysis.funnel`).
extension FunnelEvaluator {
    /// Where a success event can change the report, per actor, from the events added so far
    /// (the funnel's step events, read with ``FunnelSQLBuilder/eventsSQL(_:successOnAnyEvent:)``
    /// and `successOnAnyEvent: false`): from the actor's first event of step `afterStep`
    /// through its last entry in [from, to) plus the window, both inclusive. An actor with no
    /// such step event or no entry in range has none: its chain can have no success.
    ///
    /// Why this is exact: a chain's success is the first success event strictly after the chain's
    /// step-`afterStep` event and at most the window after its entry (`bestChain(_:steps:)`);
    /// every such event lies in this window. Success events carry no step bit, so adding them
    /// never changes which chain is reported.
    public func successSearchWindows() -> [(actorNumber: Int32, actor: String, fromMs: Int64, throughMs: Int64)] {
        guard let success = query.funnel.successCondition, success.afterStep >= 1 else { return [] }
        let afterBit = UInt32(1) << UInt32(success.afterStep - 1)
        // Per actor: its first step-`afterStep` time and its last in-range entry (none: .min / .max).
        var firstAfter = [Int64](repeating: .max, count: actorNames.count)
        var lastEntry = [Int64](repeating: .min, count: actorNames.count)
        for event in events {
            let actor = Int(event.actor)
            if event.steps & afterBit != 0 { firstAfter[actor] = min(firstAfter[actor], event.timeMs) }
            if event.steps & 1 != 0, event.timeMs >= query.fromMs, event.timeMs < query.toMs { lastEntry[actor] = max(lastEntry[actor], event.timeMs) }
        }
        var windows: [(actorNumber: Int32, actor: String, fromMs: Int64, throughMs: Int64)] = []
        for number in actorNames.indices where firstAfter[number] != .max && lastEntry[number] != .min {
            let through = lastEntry[number] &+ query.windowMs
            if firstAfter[number] <= through { windows.append((Int32(number), actorNames[number], firstAfter[number], through)) }
        }
        return windows
    }
}

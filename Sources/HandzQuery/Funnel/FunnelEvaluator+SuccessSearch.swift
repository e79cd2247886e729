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
        var windows: [(actorNumber: Int32, actor: String, fromMs: Int64, throughMs: Int64)] = []
        for (number, events) in actorEvents.enumerated() {
            var firstAfter: Int64?
            var lastEntry: Int64?
            for event in events {
                if event.steps & afterBit != 0 { firstAfter = min(firstAfter ?? event.timeMs, event.timeMs) }
                if event.steps & 1 != 0, event.timeMs >= query.fromMs, event.timeMs < query.toMs {
                    lastEntry = max(lastEntry ?? event.timeMs, event.timeMs)
                }
            }
            guard let firstAfter, let lastEntry else { continue }
            let through = lastEntry &+ query.windowMs
            if firstAfter <= through { windows.append((Int32(number), actorNames[number], firstAfter, through)) }
        }
        return windows
    }
}

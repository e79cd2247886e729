import HandzAnalyticsCore
import HandzQuery
import HandzSQLite
import HandzStore

/// F1's success — "an event after signup_success that says user_state = free" (CH33 §5.1) — is
/// a success on any event: read by its filter, it is about half of all stored events, and on the
/// analytical layer every one of them needs its envelope looked up (`user_state` lives in
/// `event_contexts`). At 20,000 installs that read was most of F1's 2.2 s.
///
/// Only installs whose chain reaches the success's step can have a success, and only in a few
/// days of their history (``FunnelEvaluator/successSearchWindows()``). So the walk reads the
/// funnel's own events from the layer first, then, for each such install, its events in that
/// window from the log's `(install_id, event_time_ms)` index — the one the deletion step uses —
/// up to the layer's watermark, so both reads see the same events. The tests hold the result to
/// the funnel SQL on the log.
extension StoreAnalysis {
    /// The success filter when this reader applies: the layer, install actors, the store's own
    /// table, a single-actor funnel whose success is on any event and links nothing.
    func successReadByInstall(_ query: FunnelQuery, _ builder: FunnelSQLBuilder) throws -> String? {
        guard source == .analyticalLayer, query.actor == .install, query.source == .table, query.funnel.handoffIndex == nil,
              query.funnel.successCondition?.differs == nil else { return nil }
        return try builder.successFilter(query.funnel)
    }

    /// The success events (not step events) of each install in its search window, added with only
    /// the success bit set.
    func addSuccessEvents(_ filter: String, into evaluator: inout FunnelEvaluator) throws {
        let windows = evaluator.successSearchWindows()
        guard !windows.isEmpty else { return }
        let watermark = try AnalyticalLayer.watermark(database)
        let probe = try database.prepare(try planned("""
            SELECT e.event_time_ms, e.event_id FROM main.events e
            WHERE e.install_id = ?1 AND e.event_time_ms >= ?2 AND e.event_time_ms <= ?3 AND e.rowid <= ?4 AND \(filter)
            """, events: []))
        defer { probe.reset() }
        let successBit = UInt32(1) << UInt32(evaluator.query.funnel.steps.count)
        for window in windows {
            probe.reset()
            try probe.bind([.text(window.actor), .integer(window.fromMs), .integer(window.throughMs), .integer(watermark)])
            while try probe.step() {
                evaluator.add(actorNumber: window.actorNumber, timeMs: probe.int64(0), eventID: UUIDWords(orderingBytes: probe.bytes(1)),
                              steps: successBit, breakdown: nil)
            }
        }
    }
}

/// A funnel in any order (issue 35 §3, `FunnelOrder.any`) as running windows.
///
/// An entry is an event of any step with time in [from, to); its level is the number of
/// different steps the actor does at or after it (in the total order) within the window — the
/// steps are disjoint (``FunnelModes/check(_:)``), so one event never fills two. One window per
/// step gives each row `u{j}`, the time of the first step-j event at or after it; the reported
/// chain is the entry with the highest level, the earliest on ties, as in order. Its step times
/// are the times it reached its 1st, 2nd, … different step: the reached `u{j}` sorted — by one
/// `ROW_NUMBER` over one row per (chain, step), read back into t1…tn — so the medians are of
/// the time from reaching k − 1 steps to reaching k.
extension FunnelSQLBuilder {
    func anyOrderChainCTEs(_ query: FunnelQuery) -> [String] {
        let count = query.funnel.steps.count
        let window = String(query.windowMs)
        let atOrAfter = "OVER (PARTITION BY actor ORDER BY t DESC, id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
        let steps = 1...count
        let firsts = steps.map { "MIN(CASE WHEN s\($0) = 1 THEN t END) \(atOrAfter) AS u\($0)" }
        let anyStep = steps.map { "s\($0) = 1" }.joined(separator: " OR ")
        let level = steps.map { "CASE WHEN u\($0) <= t + \(window) THEN 1 ELSE 0 END" }.joined(separator: " + ")
        let chainsOf = query.byEntryDay ? "actor, bd" : "actor"
        let stepNumbers = steps.map { "SELECT \($0) AS step" }.joined(separator: " UNION ALL ")
        let reachedTime = "CASE" + steps.map { " WHEN sn.step = \($0) THEN ae.u\($0)" }.joined() + " END"
        let sortedTimes = steps.map { "MAX(CASE WHEN k = \($0) THEN u END) AS t\($0)" }.joined(separator: ", ")
        return [
            """
            au AS (
              SELECT actor, t, id, bd, \(steps.map { "s\($0)" }.joined(separator: ", ")),
                     \(firsts.joined(separator: ",\n         "))
              FROM ev
            )
            """,
            """
            ae AS (
              SELECT actor, t, id, bd, \(steps.map { "u\($0)" }.joined(separator: ", ")), \(level) AS lvl,
                     ROW_NUMBER() OVER (PARTITION BY \(chainsOf) ORDER BY \(level) DESC, t, id) AS r
              FROM au
              WHERE (\(anyStep)) AND t >= \(query.fromMs) AND t < \(query.toMs)
            )
            """,
            """
            ak AS (
              SELECT actor, bd, lvl, u, ROW_NUMBER() OVER (PARTITION BY \(chainsOf) ORDER BY u, step) AS k
              FROM (
                SELECT ae.actor AS actor, ae.bd AS bd, ae.lvl AS lvl, sn.step AS step, \(reachedTime) AS u, ae.t AS t
                FROM ae CROSS JOIN (\(stepNumbers)) sn
                WHERE ae.r = 1
              ) x
              WHERE u <= t + \(window)
            )
            """,
            """
            rk AS (
              SELECT actor, bd, lvl, \(sortedTimes), \(dialect.nullInteger) AS tx, 1 AS lo, 1 AS kind, \(dialect.nullInteger) AS lk, 1 AS r
              FROM ak
              GROUP BY actor, bd, lvl
            )
            """,
        ]
    }
}

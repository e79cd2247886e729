/// ClickHouse: the chains from per-actor arrays instead of running windows.
///
/// ClickHouse evaluates window functions on one thread and sorts once per window, so the n − 1
/// window passes of the portable SQL are its slowest part. Its array functions do the same passes
/// inside one `GROUP BY actor`: per actor, the events sorted by (event_time_ms, event_id), then for
/// k = n…2 and j = k…n an array `f{k}_j` whose i-th element is the time of step j on the greedy
/// chain of steps k…n that starts strictly after event i (`none` when there is no such chain).
/// `arrayReverseFill` copies each step-k event's value back over the events before it — "the value
/// at the first step-k event after i" — with no `MIN` needed, and a shift by one makes it
/// strictly after. Every lambda takes aligned arrays as arguments and captures nothing, because
/// ClickHouse copies a captured array once per element (quadratic for an actor with many events).
/// The result has the columns of the portable `rk` CTE, with r = 1 on every row; the medians are
/// `quantileExactLow(0.5)`, ClickHouse's own lower median. Held to the other engines' numbers by
/// the engine-agreement check.
extension FunnelSQLBuilder {
    /// "No such step": larger than any time plus any window, so the window test fails on it.
    static let clickHouseNone = "toInt64(9223372036854775807)"

    /// The result rows from `dl` (a single-actor funnel: every row counts, no links): ClickHouse's `quantileExactLow(0.5)` is exactly the lower
    /// median (``Median``: position ⌈n/2⌉ of the sorted values; NULL when every value is NULL, as
    /// for step 1), computed as a parallel aggregate instead of two single-threaded windows.
    static let clickHouseMedianSelect = """
        SELECT bd AS breakdown, step, count() AS actors, quantileExactLow(0.5)(d) AS median_ms, toUInt64(0) AS links
        FROM dl
        GROUP BY bd, step
        ORDER BY step
        """

    func clickHouseChainCTEs(_ query: FunnelQuery) -> [String] {
        let count = query.funnel.steps.count
        let none = Self.clickHouseNone
        let successStep = query.funnel.successCondition?.afterStep
        // Bit k−1: step k; bit n: the success condition.
        let mask = ((1...count).map { "s\($0) * \(1 << ($0 - 1))" } + (successStep == nil ? [] : ["sx * \(1 << count)"])).joined(separator: " + ")
        /// The value of `source` at the first event after i that has `bit` (`none` if none).
        func firstAfter(bit: Int, _ source: String) -> String {
            let own = "arrayMap((v, m) -> if(bitAnd(m, \(1 << bit)) != 0, v, \(none)), \(source), ms)"
            return "arrayPushBack(arraySlice(arrayReverseFill(v -> v != \(none), \(own)), 2), \(none))"
        }
        var perActor = [
            "actor",
            "arraySort(x -> (x.1, x.2), groupArray((t, id, bd, toUInt32(\(mask))))) AS evs",
            "arrayMap(x -> x.1, evs) AS ts",
            "arrayMap(x -> x.3, evs) AS bds",
            "arrayMap(x -> x.4, evs) AS ms",
        ]
        // gx: the time of the first success event after each event (see the window passes).
        if successStep != nil { perActor.append("\(firstAfter(bit: count, "ts")) AS gx") }
        for k in stride(from: count, through: 2, by: -1) {
            for j in k...count {
                // Step-k events keep their value, the others get `none`; filling `none`s from the
                // right gives the value at the first step-k event at or after i; the shift makes
                // it strictly after.
                perActor.append("\(firstAfter(bit: k - 1, j == k ? "ts" : "f\(k + 1)_\(j)")) AS f\(k)_\(j)")
            }
            if let successStep, k <= successStep {
                perActor.append("\(firstAfter(bit: k - 1, k == successStep ? "gx" : "f\(k + 1)_x")) AS f\(k)_x")
            }
        }
        // An entry's level: 1 + its chain's steps inside entry + window (times only grow along a
        // chain, so those steps are a prefix); 0 for events that are not entries.
        let later = Array(stride(from: 2, through: count, by: 1))
        let arguments = ["t", "m"] + later.map { "a\($0)" }
        let arrays = ["ts", "ms"] + later.map { "f2_\($0)" }
        let inside = later.map { " + (a\($0) <= t + \(query.windowMs))" }.joined()
        let entry = "bitAnd(m, 1) != 0 AND t >= \(query.fromMs) AND t < \(query.toMs)"
        perActor.append("arrayMap((\(arguments.joined(separator: ", "))) -> if(\(entry), toUInt32(1\(inside)), toUInt32(0)), \(arrays.joined(separator: ", "))) AS levels")
        perActor.append("arrayMax(levels) AS top")
        // The earliest entry with the highest level.
        perActor.append("indexOf(levels, top) AS best")
        var columns = ["actor", "bds[best] AS bd", "top AS lvl", "ts[best] AS t1"]
        for k in later { columns.append("if(top >= \(k), f2_\(k)[best], NULL) AS t\(k)") }
        if let successStep {
            let time = successStep == 1 ? "gx[best]" : "f2_x[best]"
            columns.append("if(top >= \(successStep) AND \(time) <= ts[best] + \(query.windowMs), \(time), NULL) AS tx")
        } else {
            columns.append("NULL AS tx")
        }
        columns += ["1 AS lo", "1 AS kind", "\(SQLDialect.clickhouse.nullInteger) AS lk", "1 AS r"]
        return ["""
        ca AS (
          SELECT \(perActor.joined(separator: ",\n         "))
          FROM ev
          GROUP BY actor
        )
        """, """
        rk AS (
          SELECT \(columns.joined(separator: ", "))
          FROM ca
          WHERE top > 0
        )
        """]
    }
}

/// ClickHouse: the chains from per-actor arrays instead of running windows.
///
/// ClickHouse evaluates window functions on one thread and sorts once per window, so the n − 1
/// passes of the portable SQL cost about 7 s on 2 M funnel events; its array functions do the same
/// walk as ``FunnelEvaluator`` in one `GROUP BY actor`. Per actor: the events sorted by
/// (event_time_ms, event_id); for each step k an array `n_k` whose i-th element is the position of
/// the first step-k event strictly after event i (0: none) — `arrayReverseFill` carries each
/// step-k position back over the events before it; then every entry's chain is one lookup per
/// step, and the reported chain is the first entry with the highest level. The result has the
/// columns of the portable `rk` CTE (with r = 1 on every row), so the medians that follow are
/// shared by every dialect. Held to the other engines' numbers by the engine-agreement check.
extension FunnelSQLBuilder {
    func clickHouseChainCTEs(_ query: FunnelQuery) -> [String] {
        let count = query.funnel.steps.count
        let mask = (1...count).map { "s\($0) * \(1 << ($0 - 1))" }.joined(separator: " + ")
        var perActor = [
            "actor",
            "arraySort(x -> (x.1, x.2), groupArray((t, id, bd, toUInt32(\(mask))))) AS evs",
            "arrayMap(x -> x.1, evs) AS ts",
            "arrayMap(x -> x.4, evs) AS ms",
            "arrayFilter(i -> bitAnd(ms[i], 1) != 0 AND ts[i] >= \(query.fromMs) AND ts[i] < \(query.toMs), arrayEnumerate(ms)) AS entries",
        ]
        for k in stride(from: 2, through: count, by: 1) {
            // Position of the first step-k event at or after i, then shifted by one: strictly after.
            let atOrAfter = "arrayReverseFill(x -> x > 0, arrayMap((m, i) -> if(bitAnd(m, \(1 << (k - 1))) != 0, i, 0), ms, arrayEnumerate(ms)))"
            perActor.append("arrayPushBack(arraySlice(\(atOrAfter), 2), 0) AS n\(k)")
        }
        // c_k[e]: the position of step k on entry e's chain (0: the chain ended before it).
        perActor.append("entries AS c1")
        for k in stride(from: 2, through: count, by: 1) {
            perActor.append("arrayMap(p -> if(p = 0, 0, n\(k)[p]), c\(k - 1)) AS c\(k)")
        }
        // An entry's level: 1 + the steps of its chain inside entry + window. Times only grow
        // along a chain, so the steps inside are a prefix and counting them is the level.
        var terms: [String] = ["1"]
        for k in stride(from: 2, through: count, by: 1) {
            terms.append("(c\(k)[j] != 0 AND ts[c\(k)[j]] <= ts[c1[j]] + \(query.windowMs))")
        }
        let levelSum = terms.joined(separator: " + ")
        perActor.append("arrayMap(j -> toUInt32(\(levelSum)), arrayEnumerate(c1)) AS levels")
        perActor.append("arrayFirstIndex(l -> l = arrayMax(levels), levels) AS best")
        var columns = ["actor", "tupleElement(evs[c1[best]], 3) AS bd", "levels[best] AS lvl"]
        for k in 1...count {
            columns.append("if(levels[best] >= \(k), ts[c\(k)[best]], NULL) AS t\(k)")
        }
        columns.append("1 AS r")
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
          WHERE length(entries) > 0
        )
        """]
    }
}

import HandzAnalyticsCore

/// Funnels across people (a step with `actor: other`, CH33 §5.1 F2): the SQL of the semantics in
/// the HandzQuery docs ("Funnels across people"), for every dialect.
///
/// - The sender's steps 1…H are the single-actor running-window chains (``windowChainCTEs(_:steps:source:prefix:linkPosition:)``,
///   CTEs `sp…`, `sch`, `srk`), which also give each entry's step-H event by its place `ph` in its
///   actor's order.
/// - `sl`/`lk`: the links — every step-H event on the chain of an in-range entry, with the
///   earliest such entry (its time starts the link's window, its breakdown value labels it) and a
///   number `lid`.
/// - `c{k}`/`b{k}`: the receivers' chains, one step at a time: candidates are the receiver's
///   events of step k carrying the linked id, after step k−1 (the hand-off: at or after the link
///   event, by another actor) and within the window; a step a later step links to keeps every
///   candidate (each is a branch), any other keeps the first. Joins are on the actor and an id,
///   never events to events at large.
/// - `bt`: per (link, receiver), the branch reaching most steps, then the earliest by each step's
///   (time, event_id); `sxc`: its success.
/// - `rk`: sender chains (counted from step 1), receivers (counted from the hand-off) and one row
///   per link (kind 0: counts only its link at step H).
extension FunnelSQLBuilder {
    /// Every property a link or the success's `differs` reads, in order of first use.
    public static func linkProperties(_ funnel: FunnelDefinition) -> [String] {
        var names: [String] = []
        let links = funnel.steps.compactMap(\.link) + [funnel.successCondition?.differs].compactMap { $0 }
        for link in links {
            for name in [link.property, link.stepProperty] where !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The steps (1-based) whose candidates are all kept: those a later step links to.
    static func branchingSteps(_ funnel: FunnelDefinition) -> Set<Int> {
        guard let handoff = funnel.handoffIndex else { return [] }
        return Set(funnel.steps.compactMap(\.link).map(\.step).filter { $0 > handoff })
    }

    /// `v_{property}` columns for `ev` (the text of each linked id; NULL when absent).
    func linkColumns(_ funnel: FunnelDefinition, _ access: PropertyAccess) throws(QueryError) -> [String] {
        guard funnel.handoffIndex != nil else { return [] }
        var columns: [String] = []
        for name in Self.linkProperties(funnel) {
            try PropertyAccess.checkIdentifier(name)
            columns.append("\(try access.text(name)) AS v_\(name)")
        }
        return columns
    }

    func linkedChainCTEs(_ query: FunnelQuery) throws(QueryError) -> [String] {
        let funnel = query.funnel
        guard let handoffIndex = funnel.handoffIndex else { return [] }
        let count = funnel.steps.count
        let senderSteps = handoffIndex          // steps 1…H
        let handoff = handoffIndex + 1          // step H + 1, 1-based
        let window = String(query.windowMs)
        let properties = Self.linkProperties(funnel)
        let branching = Self.branchingSteps(funnel)
        let success = funnel.successCondition
        let flags = (1...count).map { "s\($0)" } + (success == nil ? [] : ["sx"])
        let values = properties.map { "v_\($0)" }
        // PostgreSQL inlines a CTE read once and, with no statistics on CTE rows, plans these
        // joins as nested loops that re-run the inlined query per outer row (F2 took 66 s on
        // 68k events); computed once, each is read from memory (`AS MATERIALIZED`, PostgreSQL 12+).
        let materialized = dialect == .postgres ? "MATERIALIZED " : ""

        var ctes = ["""
        eo AS \(materialized)(
          SELECT \((["actor", "t", "id", "bd"] + flags + values).joined(separator: ", ")),
                 ROW_NUMBER() OVER (PARTITION BY actor ORDER BY t, id) AS pos
          FROM ev
        )
        """]
        ctes += windowChainCTEs(query, steps: senderSteps, source: "eo", prefix: "s", linkPosition: true)

        // The links: one per step-H event on an in-range entry's chain, with its earliest entry.
        func stepValues(_ step: Int, from alias: String) -> [String] { properties.map { "\(alias).v_\($0) AS c\(step)_\($0)" } }
        func carriedValues(_ step: Int, from alias: String) -> [String] { properties.map { "\(alias).c\(step)_\($0)" } }
        ctes.append("""
        sl AS \(materialized)(
          SELECT actor, ph, t, bd, ROW_NUMBER() OVER (PARTITION BY actor, ph ORDER BY t, id) AS lr
          FROM sch
          WHERE lvl = \(senderSteps)
        )
        """)
        var linkColumns = ["sl.actor AS sender", "sl.bd AS bd", "sl.t AS t1"]
        if senderSteps > 1 { linkColumns.append("e.t AS t\(senderSteps)") }
        linkColumns += ["e.id AS i\(senderSteps)"] + stepValues(senderSteps, from: "e")
        linkColumns.append("\(dialect.castInteger("DENSE_RANK() OVER (ORDER BY sl.actor, sl.ph)")) AS lid")
        ctes.append("""
        lk AS \(materialized)(
          SELECT \(linkColumns.joined(separator: ", "))
          FROM sl JOIN eo e ON e.actor = sl.actor AND e.pos = sl.ph
          WHERE sl.lr = 1
        )
        """)

        // The receivers' chains, step by step. `carried` are the columns every branch row holds;
        // `key` identifies a branch (link, receiver and the events of branching steps so far).
        var carried = ["sender", "bd", "t1"] + (senderSteps > 1 ? ["t\(senderSteps)"] : []) + ["i\(senderSteps)"]
            + properties.map { "c\(senderSteps)_\($0)" } + ["lid"]
        var key = ["lid", "rcv"]
        for step in handoff...count {
            let definition = funnel.steps[step - 1]
            let previous = step == handoff ? "lk" : "b\(step - 1)"
            var joinOn = step == handoff ? [String]() : ["e.actor = b.rcv"]
            if let link = definition.link { joinOn.append("e.v_\(link.property) = b.c\(link.step)_\(link.stepProperty)") }
            var conditions = ["e.s\(step) = 1", "e.t <= b.t1 + \(window)"]
            if step == handoff {
                // Another actor, at or after the link event: two devices' clocks order events no
                // finer than the time, and the id proves the link came first.
                conditions += ["e.actor <> b.sender", "e.t >= b.t\(senderSteps)"]
            } else {
                conditions.append("(e.t > b.t\(step - 1) OR (e.t = b.t\(step - 1) AND e.id > b.i\(step - 1)))")
            }
            let partition = step == handoff ? "b.lid, e.actor" : key.map { "b.\($0)" }.joined(separator: ", ")
            let fromCarried = step == handoff ? carried.map { "b.\($0)" } + ["e.actor AS rcv"] : key.map { "b.\($0)" }
            let stepColumns = ["e.t AS t\(step)", "e.id AS i\(step)"] + stepValues(step, from: "e")
            ctes.append("""
            c\(step) AS \(materialized)(
              SELECT \((fromCarried + stepColumns).joined(separator: ", ")),
                     ROW_NUMBER() OVER (PARTITION BY \(partition) ORDER BY e.t, e.id) AS q
              FROM \(previous) b JOIN eo e ON \(joinOn.isEmpty ? "1 = 1" : joinOn.joined(separator: " AND "))
              WHERE \(conditions.joined(separator: " AND "))
            )
            """)
            let newColumns = ["t\(step)", "i\(step)"] + properties.map { "c\(step)_\($0)" }
            let keep = branching.contains(step) ? "" : "\n  WHERE q = 1"
            if step == handoff {
                ctes.append("""
                b\(step) AS \(materialized)(
                  SELECT \((carried + ["rcv"] + newColumns).joined(separator: ", "))
                  FROM c\(step)\(keep)
                )
                """)
                carried.append("rcv")
            } else {
                ctes.append("""
                f\(step) AS \(materialized)(
                  SELECT \((key + newColumns).joined(separator: ", "))
                  FROM c\(step)\(keep)
                )
                """)
                ctes.append("""
                b\(step) AS \(materialized)(
                  SELECT \((carried.map { "b.\($0)" } + newColumns.map { "f.\($0)" }).joined(separator: ", "))
                  FROM b\(step - 1) b LEFT JOIN f\(step) f ON \(key.map { "f.\($0) = b.\($0)" }.joined(separator: " AND "))
                )
                """)
            }
            carried += newColumns
            if branching.contains(step) { key.append("i\(step)") }
        }

        // The reported branch per (link, receiver): most steps, then earliest step by step.
        var level = "CASE"
        for step in stride(from: count, through: handoff + 1, by: -1) { level += " WHEN t\(step) IS NOT NULL THEN \(step)" }
        level = handoff == count ? "\(count)" : level + " ELSE \(handoff) END"
        let order = (handoff...count).map { "t\($0), i\($0)" }.joined(separator: ", ")
        ctes.append("""
        bt AS \(materialized)(
          SELECT \(carried.joined(separator: ", ")), \(level) AS lvl,
                 ROW_NUMBER() OVER (PARTITION BY lid, rcv ORDER BY \(level) DESC, \(order)) AS r
          FROM b\(count)
        )
        """)
        var receiverSuccess = dialect.nullInteger
        var successJoin = ""
        if let success {
            let after = success.afterStep
            var conditions = ["b.r = 1", "e.sx = 1", "(e.t > b.t\(after) OR (e.t = b.t\(after) AND e.id > b.i\(after)))", "e.t <= b.t1 + \(window)"]
            if let differs = success.differs { conditions.append("e.v_\(differs.property) <> b.c\(differs.step)_\(differs.stepProperty)") }
            ctes.append("""
            sxc AS \(materialized)(
              SELECT b.lid AS lid, b.rcv AS rcv, MIN(e.t) AS tx
              FROM bt b JOIN eo e ON e.actor = b.rcv
              WHERE \(conditions.joined(separator: " AND "))
              GROUP BY b.lid, b.rcv
            )
            """)
            receiverSuccess = "x.tx"
            successJoin = " LEFT JOIN sxc x ON x.lid = b.lid AND x.rcv = b.rcv"
        }

        // rk: sender chains, receivers, links.
        let null = dialect.nullInteger
        let senderTimes = (1...count).map { $0 <= senderSteps ? "t\($0)" : "\(null) AS t\($0)" }
        let receiverTimes = (1...count).map { step -> String in
            step == 1 || step == senderSteps || step >= handoff ? "b.t\(step)" : "\(null) AS t\(step)"
        }
        let linkTimes = (1...count).map { step -> String in
            step == 1 || step == senderSteps ? "t\(step)" : "\(null) AS t\(step)"
        }
        ctes.append("""
        rk AS (
          SELECT actor, bd, lvl, \(senderTimes.joined(separator: ", ")), tx, lo, kind, lk, r FROM srk
          UNION ALL
          SELECT b.rcv AS actor, b.bd AS bd, b.lvl AS lvl, \(receiverTimes.joined(separator: ", ")), \(receiverSuccess) AS tx,
                 \(handoff) AS lo, 1 AS kind, b.lid AS lk, 1 AS r
          FROM bt b\(successJoin)
          WHERE b.r = 1
          UNION ALL
          SELECT sender AS actor, bd, \(senderSteps) AS lvl, \(linkTimes.joined(separator: ", ")), \(null) AS tx,
                 \(senderSteps) AS lo, 0 AS kind, lid AS lk, 1 AS r
          FROM lk
        )
        """)
        return ctes
    }
}

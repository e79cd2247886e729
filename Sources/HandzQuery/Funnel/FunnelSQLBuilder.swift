import HandzAnalyticsCore

/// Writes the SQL of one funnel run for one dialect. Pure: values in, SQL text out.
///
/// The query returns one row per (breakdown value, step reached by at least one actor):
/// `breakdown` (text, NULL without `--breakdown` and for the null bucket), `step` (1-based),
/// `actors` (actors whose reported chain reaches the step) and `median_ms` (the lower median of
/// the integer milliseconds between step k−1 and step k over those chains; NULL for step 1).
/// Conversions are ratios of these integers, computed by ``FunnelReport``.
///
/// How the greedy chain is computed without correlated subqueries (ClickHouse and Spark lack
/// them): the funnel's events in [from, to + window) are numbered per actor by
/// (event_time_ms, event_id) — `seq`. For every entry, step k's event is `MIN(seq)` over the
/// actor's step-k events with `seq` after step k−1's and time ≤ entry + window; because `seq`
/// follows (time, event_id), `MIN(t)` over the same rows is that event's time. `seq` strictly
/// increases along a chain, so one event never fills two steps.
public struct FunnelSQLBuilder {
    public let catalog: Catalog
    public let dialect: SQLDialect

    public init(catalog: Catalog, dialect: SQLDialect) {
        self.catalog = catalog
        self.dialect = dialect
    }

    public func sql(_ query: FunnelQuery) throws(QueryError) -> String {
        guard query.fromMs < query.toMs else { throw .invalidRange("from must be before to") }
        guard query.windowMs > 0 else { throw .invalidWindow }
        let access = PropertyAccess(catalog: catalog, dialect: dialect)
        let steps = query.funnel.steps
        let count = steps.count
        let window = String(query.windowMs)
        let from = String(query.fromMs), to = String(query.toMs)
        let horizon = String(query.toMs &+ query.windowMs)

        var ctes: [String] = try query.source.leadingCTEs(dialect)
        let actor: String
        if query.actor == .user {
            ctes.append(ActorResolution.userMapCTE(dialect))
            actor = "COALESCE(um.um_user, e.install_id)"
        } else {
            actor = "e.install_id"
        }
        let breakdown = try query.breakdown.map { name throws(QueryError) in
            try checkBreakdown(name, funnel: query.funnel)
            return try access.text(name)
        } ?? dialect.nullText

        var flags: [String] = []
        var names: [String] = []
        for (index, step) in steps.enumerated() {
            flags.append("CASE WHEN \(try access.matches(events: step.events, filters: step.filters)) THEN 1 ELSE 0 END AS s\(index + 1)")
            for name in step.events where !names.contains(name) { names.append(name) }
        }
        ctes.append("""
        ev AS (
          SELECT \(actor) AS actor, e.event_time_ms AS t, e.event_id AS id, \(breakdown) AS bd,
                 \(flags.joined(separator: ",\n         "))
          FROM events e\(query.actor == .user ? " LEFT JOIN um ON um.um_install = e.install_id" : "")
          WHERE e.event_name IN \(try dialect.literalList(names))
            AND e.event_time_ms >= \(from) AND e.event_time_ms < \(horizon)
        )
        """)
        let stepColumns = (1...count).map { "s\($0)" }.joined(separator: ", ")
        ctes.append("""
        sq AS (
          SELECT actor, t, bd, \(stepColumns), ROW_NUMBER() OVER (PARTITION BY actor ORDER BY t, id) AS seq
          FROM ev
        )
        """)
        ctes.append("""
        c1 AS (
          SELECT actor, seq AS e_seq, t AS e_t, bd, seq AS p, t AS tk
          FROM sq WHERE s1 = 1 AND t >= \(from) AND t < \(to)
        )
        """)
        for k in stride(from: 2, through: count, by: 1) {
            ctes.append("""
            c\(k) AS (
              SELECT c.actor AS actor, c.e_seq AS e_seq, MIN(s.seq) AS p, MIN(s.t) AS tk, c.e_t AS e_t
              FROM c\(k - 1) c JOIN sq s ON s.actor = c.actor
              WHERE s.s\(k) = 1 AND s.seq > c.p AND s.t <= c.e_t + \(window)
              GROUP BY c.actor, c.e_seq, c.e_t
            )
            """)
        }
        // The chains, one row per entry: every c_k holds the entries whose chain reaches step k
        // (c_k ⊆ c_k−1 on (actor, e_seq)), so the level is the largest k present and t_k its
        // time. A UNION ALL grouped by entry, rather than LEFT JOINs of c1 to each c_k, which
        // SQLite would run as nested scans (quadratic in entries).
        var parts = ["  SELECT actor, e_seq, 1 AS k, tk, bd AS b0 FROM c1"]
        for k in stride(from: 2, through: count, by: 1) {
            parts.append("  SELECT actor, e_seq, \(k) AS k, tk, \(dialect.nullText) AS b0 FROM c\(k)")
        }
        var chainColumns = ["actor", "e_seq", "MAX(b0) AS bd"]
        for k in 1...count {
            chainColumns.append("MAX(CASE WHEN k = \(k) THEN tk END) AS t\(k)")
        }
        chainColumns.append("MAX(k) AS lvl")
        ctes.append("""
        ch AS (
          SELECT \(chainColumns.joined(separator: ", "))
          FROM (
        \(parts.joined(separator: "\n  UNION ALL\n"))
          ) cu
          GROUP BY actor, e_seq
        )
        """)
        let times = (1...count).map { "t\($0)" }.joined(separator: ", ")
        ctes.append("""
        rk AS (
          SELECT actor, bd, lvl, \(times), ROW_NUMBER() OVER (PARTITION BY actor ORDER BY lvl DESC, e_seq) AS r
          FROM ch
        )
        """)
        var deltas = ["  SELECT bd, 1 AS step, \(dialect.nullInteger) AS d FROM rk WHERE r = 1"]
        for k in stride(from: 2, through: count, by: 1) {
            deltas.append("  SELECT bd, \(k) AS step, \(dialect.castInteger("t\(k) - t\(k - 1)")) AS d FROM rk WHERE r = 1 AND lvl >= \(k)")
        }
        ctes.append("dl AS (\n" + deltas.joined(separator: "\n  UNION ALL\n") + "\n)")
        ctes.append(MedianSQL.rankedCTE(name: "md", source: "dl", partition: "bd, step", value: "d"))
        return "WITH\n" + ctes.joined(separator: ",\n") + "\n"
            + "SELECT bd AS breakdown, step, MAX(n) AS actors, \(MedianSQL.pick(value: "d")) AS median_ms\n"
            + "FROM md\nGROUP BY bd, step\nORDER BY step" + dialect.querySuffix
    }

    /// Breakdowns are restricted to closed sets, so the only values a funnel prints are catalog
    /// values (CH33 §1: no free text leaves the store), and to properties step 1 carries.
    func checkBreakdown(_ name: String, funnel: FunnelDefinition) throws(QueryError) {
        try PropertyAccess.checkIdentifier(name)
        guard let definition = catalog.properties[name] else { throw .invalidBreakdown("\(name) is not a catalogued property") }
        guard definition.type == .boolean || definition.allowedValues != nil else {
            throw .invalidBreakdown("\(name) is not a closed set (enum or boolean); only those may be broken down")
        }
        if EventsTable.envelopeColumns.contains(name) { return }
        let carried = funnel.steps.first?.events.contains { eventName in
            guard let event = catalog.event(named: eventName) else { return false }
            return catalog.allowedProperties(of: event).contains { $0.name == name }
        } ?? false
        guard carried else { throw .invalidBreakdown("no step-1 event of \(funnel.id) carries \(name)") }
    }
}

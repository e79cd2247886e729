import HandzAnalyticsCore

/// Writes a ``RetentionQuery``'s SQL for one dialect: one statement whose rows are
/// ``RetentionReport/Row``s (`kind`, `cohort`, `period`, `actors`). It is the `cohort_return`
/// KPI's SQL (``KPISQLBuilder``: the same `ae` rows, the same install time `t0` with the
/// first-seen rule, the same data end) grouped by cohort and period instead of summed for one day,
/// so the matrix's curve and the KPIs agree by construction; integers only.
public struct RetentionSQLBuilder {
    public let catalog: Catalog
    public let dialect: SQLDialect

    public init(catalog: Catalog, dialect: SQLDialect) {
        self.catalog = catalog
        self.dialect = dialect
    }

    public func sql(_ query: RetentionQuery) throws(QueryError) -> String {
        try query.validate(catalog)
        let kpi = KPISQLBuilder(catalog: catalog, dialect: dialect)
        let f = String(query.fromMs), t = String(query.toMs)
        let period = String(query.interval.milliseconds), last = query.interval.periods - 1
        var ctes = try kpi.baseCTEs(query.cohortKPI)
        ctes += kpi.cohortCTEs(query.cohortKPI, f, t)
        ctes.append("de AS (SELECT MAX(t) AS tend FROM ca)")
        // Each cohort actor once, with its install time.
        ctes.append("cs AS (SELECT a.actor AS actor, MIN(a.t0) AS t0 FROM ca a WHERE \(KPISQLBuilder.inCohort(f, t)) GROUP BY a.actor)")
        // Its cohort, and the last period whose end is within the data (−1: none; at most the last shown).
        let ended = dialect.integerDivision("de.tend - cs.t0", period) + " - 1"
        ctes.append("""
        sz AS (SELECT \(dialect.castInteger(dialect.integerDivision("cs.t0 - \(f)", period))) AS c,
                      \(dialect.castInteger("CASE WHEN \(ended) > \(last) THEN \(last) ELSE \(ended) END")) AS l
               FROM cs CROSS JOIN de)
        """)
        // Each actor once per period it returned in, when that period ended within the data.
        let n = dialect.integerDivision("a.t - a.t0", period)
        ctes.append("""
        hits AS (SELECT actor, c, n FROM (
                   SELECT a.actor AS actor, \(dialect.castInteger(dialect.integerDivision("a.t0 - \(f)", period))) AS c, \(dialect.castInteger(n)) AS n
                   FROM ca a CROSS JOIN de
                   WHERE a.is_target = 1 AND \(KPISQLBuilder.inCohort(f, t)) AND a.t >= a.t0 AND a.t < a.t0 + \(Int64(query.interval.periods) * query.interval.milliseconds)
                     AND a.t0 + (\(n) + 1) * \(period) <= de.tend
                 ) x GROUP BY actor, c, n)
        """)
        return """
        WITH \(ctes.joined(separator: ",\n"))
        SELECT \(dialect.castInteger("0")) AS kind, c, l AS period, COUNT(*) AS actors FROM sz GROUP BY c, l
        UNION ALL
        SELECT \(dialect.castInteger("1")) AS kind, c, n AS period, COUNT(*) AS actors FROM hits GROUP BY c, n\(dialect.querySuffix)
        """
    }
}

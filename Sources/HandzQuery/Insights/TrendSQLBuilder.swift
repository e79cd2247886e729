import HandzAnalyticsCore

/// Writes a ``TrendQuery``'s SQL for one dialect: one statement whose rows are ``TrendReport/Row``s
/// (`series`, `period`, `value`, `other`, `n`; `period` -1 over the whole range), which
/// ``TrendReport/assemble(_:rows:)`` turns into the report. Like the funnel and KPI builders it
/// uses integers only (periods by integer division from `from`; months by their boundaries,
/// written into the SQL as numbers, so no engine's time zone or calendar functions decide a
/// figure), reads properties through the catalog and groups only closed sets.
///
/// `kept`: the breakdown values to keep (``TrendReport/keptValues(_:limit:)``); the other values'
/// events are counted together with `other` = 1 and a NULL value. Without it every value is a row.
public struct TrendSQLBuilder {
    public let catalog: Catalog
    public let dialect: SQLDialect

    public init(catalog: Catalog, dialect: SQLDialect) {
        self.catalog = catalog
        self.dialect = dialect
    }

    public func sql(_ query: TrendQuery, kept: [String]? = nil) throws(QueryError) -> String {
        try query.validate(catalog)
        let access = PropertyAccess(catalog: catalog, dialect: dialect)
        let range = "e.event_time_ms >= \(query.fromMs) AND e.event_time_ms < \(query.toMs)"
        let period = self.period(query)
        let rawValue = try query.breakdown.map { name throws(QueryError) in try access.text(name) }
        let value: String, other: String
        switch (rawValue, kept) {
        case (nil, _):
            (value, other) = (dialect.nullText, dialect.castInteger("0"))
        case (let raw?, nil):
            (value, other) = (raw, dialect.castInteger("0"))
        case (let raw?, let kept?):
            let keep = kept.isEmpty ? "\(raw) IS NULL" : "\(raw) IS NULL OR \(raw) IN \(try dialect.literalList(kept))"
            (value, other) = ("CASE WHEN \(keep) THEN \(raw) END", "CASE WHEN \(keep) THEN 0 ELSE 1 END")
        }
        let member: String?
        switch query.measure {
        case .events: member = nil
        case .installs: member = "e.install_id"
        case .sessions: member = "e.session_id"
        case .users: member = "COALESCE(um.um_user, e.install_id)"
        }
        let join = query.measure == .users ? " LEFT JOIN um ON um.um_install = e.install_id" : ""
        var selects: [String] = []
        for (index, match) in query.series.enumerated() {
            let matched = try access.matches(events: match.events, filters: match.filters)
            selects.append("  SELECT \(dialect.castInteger(String(index))) AS series, \(period) AS period, \(value) AS value, \(other) AS other"
                + (member.map { ", \($0) AS member" } ?? "") + " FROM events e\(join) WHERE \(matched) AND \(range)")
        }
        let count = member == nil ? "COUNT(*)" : "COUNT(DISTINCT member)"
        let ctes = (query.measure == .users ? [ActorResolution.userMapCTE(dialect)] : [])
            + ["ev AS (\n" + selects.joined(separator: "\n  UNION ALL\n") + "\n)"]
        return """
        WITH \(ctes.joined(separator: ",\n"))
        SELECT series, period, value, other, \(count) AS n FROM ev GROUP BY series, period, value, other
        UNION ALL
        SELECT series, \(dialect.castInteger("-1")) AS period, value, other, \(count) AS n FROM ev GROUP BY series, value, other\(dialect.querySuffix)
        """
    }

    /// The period of `e.event_time_ms` (see ``TrendQuery``): exact days or weeks by integer
    /// division; months by a `CASE` over their first milliseconds.
    func period(_ query: TrendQuery) -> String {
        let offset = "e.event_time_ms - \(query.fromMs)"
        switch query.interval {
        case .day: return dialect.castInteger(dialect.integerDivision(offset, String(EventQuery.dayMs)))
        case .week: return dialect.castInteger(dialect.integerDivision(offset, String(7 * EventQuery.dayMs)))
        case .month:
            let starts = query.periodStarts
            guard starts.count > 1 else { return dialect.castInteger("0") }
            let whens = starts.indices.dropFirst().map { "WHEN e.event_time_ms < \(starts[$0]) THEN \($0 - 1)" }
            return dialect.castInteger("CASE " + whens.joined(separator: " ") + " ELSE \(starts.count - 1) END")
        }
    }
}

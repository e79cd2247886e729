import HandzAnalyticsCore

/// Writes the SQL of an ``EventQuery`` over [from, to) for one dialect. Pure: values in, SQL text
/// out. Like the funnel and KPI builders it uses integers only (exact days, lower quantiles by
/// `ROW_NUMBER()`), reads properties through the catalog, allows only closed-set properties in
/// anything grouped (no free value ever leaves the store, CH33 §1) and leaves ordering to the
/// reader, so every engine returns the same rows.
public struct EventQuerySQLBuilder {
    public let catalog: Catalog
    public let dialect: SQLDialect

    public init(catalog: Catalog, dialect: SQLDialect) {
        self.catalog = catalog
        self.dialect = dialect
    }

    public func statements(_ query: EventQuery, fromMs: Int64, toMs: Int64) throws(QueryError) -> [EventStatement] {
        guard fromMs < toMs else { throw .invalidRange("from must be before to") }
        let access = PropertyAccess(catalog: catalog, dialect: dialect)
        let from = String(fromMs), to = String(toMs)
        let day = dialect.integerDivision("e.event_time_ms - \(from)", String(EventQuery.dayMs))
        let range = "e.event_time_ms >= \(from) AND e.event_time_ms < \(to)"
        let match = try access.matches(events: query.match.events, filters: query.match.filters)
        let suffix = dialect.querySuffix
        switch query.kind {
        case .dailyCounts:
            let series = try query.split.map { name throws(QueryError) in try closedSet(name, query.match); return try access.text(name) } ?? dialect.nullText
            let source: String
            if let key = query.firstPerKey {
                // The first event of each key value over all stored data, then the range.
                source = """
                fk AS (
                  SELECT e.install_id AS actor, e.session_id AS session, e.event_time_ms AS t, \(day) AS day, \(series) AS series,
                         ROW_NUMBER() OVER (PARTITION BY \(try access.text(key)) ORDER BY e.event_time_ms, e.event_id) AS r
                  FROM events e WHERE \(match) AND \(try access.text(key)) IS NOT NULL
                ),
                ev AS (SELECT actor, session, day, series FROM fk WHERE r = 1 AND t >= \(from) AND t < \(to))
                """
            } else {
                source = "ev AS (SELECT e.install_id AS actor, e.session_id AS session, \(day) AS day, \(series) AS series FROM events e WHERE \(match) AND \(range))"
            }
            return [EventStatement(part: .daily, sql: """
            WITH \(source)
            SELECT day, series, COUNT(*) AS events, COUNT(DISTINCT actor) AS actors, COUNT(DISTINCT session) AS sessions
            FROM ev GROUP BY day, series\(suffix)
            """)]
        case .dailyRatio:
            guard let denominator = query.denominator else { throw .invalidRange("daily_ratio needs a denominator") }
            let below = try access.matches(events: denominator.events, filters: denominator.filters)
            let counted: (String) -> String = { flag in
                switch query.count {
                case .events: "COALESCE(SUM(\(flag)), 0)"
                case .actors: "COUNT(DISTINCT CASE WHEN \(flag) = 1 THEN actor END)"
                case .sessions: "COUNT(DISTINCT CASE WHEN \(flag) = 1 THEN session END)"
                }
            }
            return [EventStatement(part: .ratio, sql: """
            WITH ev AS (
              SELECT e.install_id AS actor, e.session_id AS session, \(day) AS day,
                     CASE WHEN \(match) THEN 1 ELSE 0 END AS is_num, CASE WHEN \(below) THEN 1 ELSE 0 END AS is_den
              FROM events e WHERE (\(match) OR \(below)) AND \(range)
            )
            SELECT day, \(counted("is_num")) AS numerator, \(counted("is_den")) AS denominator FROM ev GROUP BY day
            UNION ALL
            SELECT \(dialect.castInteger("-1")) AS day, \(counted("is_num")) AS numerator, \(counted("is_den")) AS denominator FROM ev\(suffix)
            """)]
        case .topValues:
            guard !query.properties.isEmpty else { throw .invalidRange("top_values needs properties") }
            var columns: [String] = []
            for (index, name) in query.properties.enumerated() {
                try closedSet(name, query.match)
                columns.append("\(try access.text(name)) AS v\(index + 1)")
            }
            let names = (1...query.properties.count).map { "v\($0)" }.joined(separator: ", ")
            return [EventStatement(part: .values, sql: """
            WITH ev AS (SELECT e.install_id AS actor, \(columns.joined(separator: ", ")) FROM events e WHERE \(match) AND \(range))
            SELECT \(names), COUNT(*) AS events, COUNT(DISTINCT actor) AS actors FROM ev GROUP BY \(names)\(suffix)
            """)]
        case .histogram:
            guard query.properties.count == 1, let name = query.properties.first else { throw .invalidRange("histogram needs one property") }
            try integerProperty(name, query.match)
            guard query.bucketWidth > 0 else { throw .invalidRange("histogram bucket width must be positive") }
            let values = "ev AS (SELECT v FROM (SELECT \(try access.integer(name)) AS v FROM events e WHERE \(match) AND \(range)) x WHERE v IS NOT NULL)"
            let width = String(query.bucketWidth)
            var statements = [EventStatement(part: .buckets, sql: """
            WITH \(values)
            SELECT \(dialect.castInteger(dialect.integerDivision("v", width) + " * \(width)")) AS bucket, COUNT(*) AS n FROM ev
            GROUP BY \(dialect.castInteger(dialect.integerDivision("v", width) + " * \(width)"))\(suffix)
            """)]
            if !query.quantiles.isEmpty {
                let picks = query.quantiles.map { q in
                    "SELECT \(dialect.castInteger(String(q))) AS q, \(dialect.castInteger("MIN(CASE WHEN r * 100 >= \(q) * n THEN v END)")) AS value FROM rk"
                }
                statements.append(EventStatement(part: .quantiles, sql: """
                WITH \(values),
                rk AS (SELECT v, ROW_NUMBER() OVER (ORDER BY v) AS r, COUNT(*) OVER () AS n FROM ev)
                \(picks.joined(separator: "\nUNION ALL\n"))\(suffix)
                """))
            }
            return statements
        case .sessionShare:
            let perDay = try sessionDays(query, match: match, access: access, from: from, to: to)
            return [EventStatement(part: .sessions, sql: "WITH \(perDay),\n" + (try sessionShareOverDays(query, fromMs: fromMs, toMs: toMs)))]
        case .followedBy:
            guard query.target != nil else { throw .invalidRange("followed_by needs a target") }
            let kpi = query.followedByKPI(id: "followed_by")
            let sql = try KPISQLBuilder(catalog: catalog, dialect: dialect).sql(KPIQuery(kpi: kpi, fromMs: fromMs, toMs: toMs))
            return [EventStatement(part: .conversion, sql: sql)]
        }
    }

    /// The `session_share` statement after its first CTE: every CTE from `sq` on and the final
    /// SELECT, reading `sd(session, day, bad, lst)` — each session's days in [from, to) (see
    /// `sessionDays(_:match:access:from:to:)`). ``statements(_:fromMs:toMs:)`` puts `WITH sd AS
    /// (…),` in front; the embedded store can instead compute `sd` from one read of its events and
    /// run this on a temporary table of that name (`StoreAnalysis`), with the same results.
    public func sessionShareOverDays(_ query: EventQuery, fromMs: Int64, toMs: Int64) throws(QueryError) -> String {
        guard fromMs < toMs else { throw .invalidRange("from must be before to") }
        guard query.rollingDays >= 2 else { throw .invalidRange("rolling_days must be at least 2 (day 1 is the daily series)") }
        let from = String(fromMs), to = String(toMs)
        let lastDay = dialect.integerDivision("\(to) - \(from) - 1", String(EventQuery.dayMs))
        let span = String(query.rollingDays - 1)
        // Window N counts a session on day d when it has a day in [d − N + 1, d]. Each
        // (session, day) row "owns" the windows from its day until the session's next day or
        // N − 1 days later, so every window counts each session once; it is bad there until
        // N − 1 days after the session's last bad day so far. The owned ranges become +1/−1
        // steps per day, summed in day order: linear in (session, day) rows, no range join.
        // The same steps for the install's last sessions (`lst`) count the unknown ones: last
        // and not bad in the window (the KPI's left_out). `next_day` takes a Nullable argument:
        // over an empty frame ClickHouse gives a non-Nullable MIN its type's default, 0, not NULL.
        return """
        sq AS (
          SELECT day, lst,
                 MIN(CASE WHEN day IS NOT NULL THEN day END) OVER (PARTITION BY session ORDER BY day ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS next_day,
                 MAX(CASE WHEN bad = 1 THEN day END) OVER (PARTITION BY session ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS last_bad
          FROM sd
        ),
        own AS (
          SELECT day, lst, CASE WHEN next_day IS NOT NULL AND next_day - 1 < day + \(span) THEN next_day - 1 ELSE day + \(span) END AS last, last_bad FROM sq
        ),
        steps AS (
          SELECT day AS d, 1 AS dt, 0 AS db, lst AS dl, 0 AS dlb FROM own
          UNION ALL SELECT last + 1 AS d, -1 AS dt, 0 AS db, 0 - lst AS dl, 0 AS dlb FROM own
          UNION ALL SELECT day AS d, 0 AS dt, 1 AS db, 0 AS dl, lst AS dlb FROM own WHERE last_bad IS NOT NULL AND last_bad + \(span) >= day
          UNION ALL SELECT CASE WHEN last_bad + \(span) < last THEN last_bad + \(span) ELSE last END + 1 AS d, 0 AS dt, -1 AS db, 0 AS dl, 0 - lst AS dlb
            FROM own WHERE last_bad IS NOT NULL AND last_bad + \(span) >= day
        ),
        per AS (SELECT d, SUM(dt) AS dt, SUM(db) AS db, SUM(dl) AS dl, SUM(dlb) AS dlb FROM steps GROUP BY d),
        run AS (
          SELECT d, SUM(dt) OVER (ORDER BY d ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS sn,
                 SUM(db) OVER (ORDER BY d ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS bads,
                 SUM(dl) OVER (ORDER BY d ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS lasts,
                 SUM(dlb) OVER (ORDER BY d ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS lbads
          FROM per
        )
        SELECT \(dialect.castInteger("1")) AS days, day, SUM(CASE WHEN bad = 0 AND lst = 0 THEN 1 ELSE 0 END) AS good,
               SUM(CASE WHEN bad = 1 OR lst = 0 THEN 1 ELSE 0 END) AS total, SUM(CASE WHEN bad = 0 AND lst = 1 THEN 1 ELSE 0 END) AS left_out
        FROM sd GROUP BY day
        UNION ALL
        SELECT \(dialect.castInteger(String(query.rollingDays))) AS days, d AS day, sn - bads - (lasts - lbads) AS good, sn - (lasts - lbads) AS total,
               lasts - lbads AS left_out FROM run
        WHERE sn > 0 AND d <= \(lastDay)\(dialect.querySuffix)
        """
    }

    /// The columns a `session_share` with a `sessionKey` reads from each event, as SQL over
    /// `events e`: the condition of a report (`match`), whether the event is one (1 or 0) and, on
    /// reports only, the session it names (text). The same expressions as the statement's, for a
    /// reader that computes `sd` itself.
    public func sessionReportColumns(_ query: EventQuery) throws(QueryError) -> (match: String, isReport: String, namedSession: String) {
        guard let key = query.sessionKey else { throw .invalidRange("session_share without session_key") }
        try sessionKeyProperty(key, query.match)
        let access = PropertyAccess(catalog: catalog, dialect: dialect)
        let match = try access.matches(events: query.match.events, filters: query.match.filters)
        return (match, "CASE WHEN \(match) THEN 1 ELSE 0 END", "CASE WHEN \(match) THEN \(try access.text(key)) END")
    }

    /// `sd(session, day, bad, lst)`: each session's days in [from, to), `bad` when the session
    /// is bad that day, `lst` when it is its install's last session. Without `sessionKey`: bad on
    /// a day with a `match` event, `lst` always 0 (the KPI `sessions_without`). With it, the KPI
    /// `sessions_without_report` (CH33 §5.2 Quality, §6.11): bad on every day when a `match`
    /// event at any time names the session in `sessionKey`, or on a day with a `match` event
    /// without the key (older app builds); `lst` from ``KPISQLBuilder/reportedSessionCTEs``.
    func sessionDays(_ query: EventQuery, match: String, access: PropertyAccess, from: String, to: String) throws(QueryError) -> String {
        guard let key = query.sessionKey else {
            let day = dialect.integerDivision("e.event_time_ms - \(from)", String(EventQuery.dayMs))
            return """
            sd AS (
              SELECT session, day, MAX(bad) AS bad, 0 AS lst FROM (
                SELECT e.session_id AS session, \(day) AS day, CASE WHEN \(match) THEN 1 ELSE 0 END AS bad FROM events e
                WHERE e.event_time_ms >= \(from) AND e.event_time_ms < \(to)
              ) x GROUP BY session, day
            )
            """
        }
        try sessionKeyProperty(key, query.match)
        let day = dialect.integerDivision("t - \(from)", String(EventQuery.dayMs))
        let shared = KPISQLBuilder.reportedSessionCTEs(rows: "ev", install: "inst", session: "session", time: "t", id: "id", flag: "hit", key: "kv")
        let reported = KPISQLBuilder.reportedSessionTest(of: "sb", dialect: dialect)
        return """
        ev AS (
          SELECT e.install_id AS inst, e.session_id AS session, e.event_time_ms AS t, e.event_id AS id,
                 CASE WHEN \(match) THEN 1 ELSE 0 END AS hit, \(KPISQLBuilder.onlyWhere("CASE WHEN \(match) THEN 1 ELSE 0 END", try access.text(key), dialect: dialect)) AS kv
          FROM events e
        ),
        \(shared.joined(separator: ",\n")),
        sb AS (
          SELECT session, day, MAX(unnamed) AS unnamed FROM (
            SELECT session, \(day) AS day, CASE WHEN hit = 1 AND kv IS NULL THEN 1 ELSE 0 END AS unnamed FROM ev WHERE t >= \(from) AND t < \(to)
          ) x GROUP BY session, day
        ),
        sd AS (
          SELECT sb.session AS session, sb.day AS day, CASE WHEN sb.unnamed = 1 OR \(reported.test) THEN 1 ELSE 0 END AS bad,
                 CASE WHEN ls.session IS NOT NULL THEN 1 ELSE 0 END AS lst
          FROM sb\(reported.join) LEFT JOIN ls ON ls.session = sb.session
        )
        """
    }

    /// A session key names a session: a uuid property carried by every matched event.
    func sessionKeyProperty(_ name: String, _ match: EventMatch) throws(QueryError) {
        try PropertyAccess.checkIdentifier(name)
        guard catalog.properties[name]?.format == .uuid, !EventsTable.envelopeColumns.contains(name) else {
            throw .invalidBreakdown("\(name) is not an event property of format uuid, so it cannot name a session")
        }
        try carried(name, match)
    }

    /// Grouped properties must be closed sets (enum or boolean) carried by every matched event.
    func closedSet(_ name: String, _ match: EventMatch) throws(QueryError) {
        try PropertyAccess.checkIdentifier(name)
        guard catalog.properties[name]?.closedValues != nil else {
            throw .invalidBreakdown("\(name) is not a closed set (enum or boolean); only those may be grouped")
        }
        try carried(name, match)
    }

    func integerProperty(_ name: String, _ match: EventMatch) throws(QueryError) {
        try PropertyAccess.checkIdentifier(name)
        guard catalog.properties[name]?.type == .integer else { throw .invalidBreakdown("\(name) is not an integer property") }
        try carried(name, match)
    }

    func carried(_ name: String, _ match: EventMatch) throws(QueryError) {
        if EventsTable.envelopeColumns.contains(name) { return }
        for eventName in match.events {
            guard let event = catalog.event(named: eventName), catalog.allowedProperties(of: event).contains(where: { $0.name == name }) else {
                throw .invalidBreakdown("\(eventName) does not carry \(name)")
            }
        }
    }
}

import HandzAnalyticsCore

/// Writes the SQL of one KPI run for one dialect. Pure: values in, SQL text out. Each measure
/// (`KPIMeasure`) is one template written once for every dialect: the rows of `events` it
/// needs, tagged with 0/1 flags per event match (`ae`), then joins and aggregates on integers
/// only — no correlated subqueries, no percentile functions, integer division spelled per
/// dialect. The result shape is ``KPIShape``.
public struct KPISQLBuilder {
    public let catalog: Catalog
    public let dialect: SQLDialect

    public init(catalog: Catalog, dialect: SQLDialect) {
        self.catalog = catalog
        self.dialect = dialect
    }

    /// Install time (cohort measures): the actor's first app_open (CH33 has no install event),
    /// unless ``InstallFirstSeenTable`` knows the install was first seen earlier (see ``cohortCTEs(_:_:_:)``).
    static let activeEvent = "app_open"

    public func sql(_ query: KPIQuery) throws(QueryError) -> String {
        guard query.fromMs < query.toMs else { throw .invalidRange("from must be before to") }
        let kpi = query.kpi
        let f = String(query.fromMs), t = String(query.toMs)
        let window = String((kpi.windowSeconds ?? 0) * 1000)
        var ctes = try baseCTEs(query)
        let body: String
        let week = dialect.integerDivision("t - \(f)", String(KPIQuery.weekMs))
        func weekly() throws(QueryError) -> String {
            guard query.wholeWeeks >= 1 else { throw .invalidRange("\(kpi.id) needs a range of at least one whole week (7 days)") }
            return "t >= \(f) AND t < \(query.weeksEndMs)"
        }
        /// `name(actor, w)`: the distinct actor-weeks with `flag` set.
        func actorWeeks(_ name: String, _ flag: String, _ range: String) -> String {
            "\(name) AS (SELECT actor, w FROM (SELECT actor, \(week) AS w FROM ae WHERE \(flag) = 1 AND \(range)) x GROUP BY actor, w)"
        }
        switch kpi.measure {
        case .cohortConversion, .cohortReturn:
            ctes += cohortCTEs(query, f, t)
            let lower = kpi.measure == .cohortReturn ? "a.t >= a.t0 + \(86_400_000 * (kpi.day ?? 0))" : "a.t >= a.t0"
            let upper = kpi.measure == .cohortReturn ? "a.t < a.t0 + \(86_400_000 * ((kpi.day ?? 0) + 1))" : "a.t <= a.t0 + \(window)"
            // A member counts only once its whole window lies within the data (issue 21 §7):
            // `de` is the data's end, the latest event the measure reads (app_open included).
            let windowEnd = kpi.measure == .cohortReturn ? String(86_400_000 * ((kpi.day ?? 0) + 1)) : window
            let complete = "a.t0 + \(windowEnd) <= de.tend"
            ctes.append("de AS (SELECT MAX(t) AS tend FROM ca)")
            ctes.append("cw AS (SELECT a.actor AS actor, MAX(CASE WHEN \(complete) THEN 1 ELSE 0 END) AS done FROM ca a CROSS JOIN de WHERE \(Self.inCohort(f, t)) GROUP BY a.actor)")
            ctes.append("hit AS (SELECT a.actor AS actor FROM ca a CROSS JOIN de WHERE a.is_target = 1 AND \(Self.inCohort(f, t)) AND \(complete) AND \(lower) AND \(upper) GROUP BY a.actor)")
            body = "SELECT nu.numerator AS numerator, de2.denominator AS denominator, de2.left_out AS left_out "
                + "FROM (SELECT COUNT(*) AS numerator FROM hit) nu CROSS JOIN "
                + "(SELECT COALESCE(SUM(done), 0) AS denominator, COALESCE(SUM(1 - done), 0) AS left_out FROM cw) de2"
        case .cohortMedianTime:
            ctes += cohortCTEs(query, f, t)
            ctes.append("ft AS (SELECT a.actor AS actor, \(dialect.castInteger("MIN(a.t) - a.t0")) AS d FROM ca a WHERE a.is_target = 1 AND \(Self.inCohort(f, t)) AND a.t >= a.t0 GROUP BY a.actor, a.t0)")
            ctes.append("""
            md AS (SELECT d, ROW_NUMBER() OVER (ORDER BY d) AS r, COUNT(*) OVER () AS n FROM ft)
            """)
            body = "SELECT \(MedianSQL.pick(value: "d")) AS median_ms, COALESCE(MAX(n), 0) AS actors FROM md"
        case .everyWeek:
            let range = try weekly()
            ctes.append(actorWeeks("wk", "is_target", range))
            ctes.append("per AS (SELECT actor, COUNT(*) AS weeks FROM wk GROUP BY actor)")
            if kpi.population.isEmpty {
                body = "SELECT COALESCE(SUM(CASE WHEN weeks = \(query.wholeWeeks) THEN 1 ELSE 0 END), 0) AS numerator, COUNT(*) AS denominator FROM per"
            } else {
                // CH33 §5.2 "% users running practice at least once per week": of the actors with
                // a population event (app_open: active users) in the whole weeks, those with
                // `target` in every one of them.
                ctes.append("pa AS (SELECT actor FROM ae WHERE is_pop = 1 AND \(range) GROUP BY actor)")
                body = "SELECT COALESCE(SUM(CASE WHEN per.weeks = \(query.wholeWeeks) THEN 1 ELSE 0 END), 0) AS numerator, COUNT(*) AS denominator "
                    + "FROM pa LEFT JOIN per ON per.actor = pa.actor"
            }
        case .weeklyDistinctPerActive:
            let range = try weekly()
            ctes.append(actorWeeks("act", "is_open", range))
            ctes.append("num AS (SELECT actor, w, v FROM (SELECT actor, \(week) AS w, pv AS v FROM ae WHERE is_target = 1 AND pv IS NOT NULL AND \(range)) x GROUP BY actor, w, v)")
            body = ratio("SELECT COUNT(*) AS numerator FROM num JOIN act ON act.actor = num.actor AND act.w = num.w", "SELECT COUNT(*) AS denominator FROM act")
        case .weeklySumPerActor:
            let range = try weekly()
            ctes.append(actorWeeks("pop", "is_target", range))
            ctes.append("amt AS (SELECT actor, w, SUM(amount) AS total FROM (SELECT actor, \(week) AS w, amount FROM ae WHERE amount IS NOT NULL AND \(range)) x GROUP BY actor, w)")
            body = "SELECT \(dialect.castInteger("COALESCE(SUM(amt.total), 0)")) AS numerator, COUNT(*) AS denominator FROM pop LEFT JOIN amt ON amt.actor = pop.actor AND amt.w = pop.w"
        case .latestValueDistribution:
            ctes.append("""
            lv AS (SELECT v, ROW_NUMBER() OVER (PARTITION BY actor, k ORDER BY t DESC, id DESC) AS r
                   FROM (SELECT actor, kv AS k, iv AS v, t, id FROM ae WHERE is_target = 1 AND kv IS NOT NULL AND t >= \(f) AND t < \(t)) x)
            """)
            body = "SELECT v AS bucket, COUNT(*) AS flows FROM lv WHERE r = 1 GROUP BY v ORDER BY v"
        case .weeklyActorShare:
            let range = try weekly()
            ctes.append(actorWeeks("act", "is_open", range))
            ctes.append(actorWeeks("num", "is_target", range))
            body = ratio("SELECT COUNT(*) AS numerator FROM num JOIN act ON act.actor = num.actor AND act.w = num.w", "SELECT COUNT(*) AS denominator FROM act")
        case .followedBy:
            let keyed = kpi.key != nil
            ctes.append("src AS (SELECT actor, k, MIN(t) AS t0 FROM (SELECT actor, \(keyed ? "kv" : "''") AS k, t FROM ae WHERE is_source = 1 AND t >= \(f) AND t < \(t)\(keyed ? " AND kv IS NOT NULL" : "")) x GROUP BY actor, k)")
            ctes.append("hit AS (SELECT s.actor AS actor, s.k AS k FROM src s JOIN ae a ON a.actor = s.actor\(keyed ? " AND a.kv = s.k" : "") WHERE a.is_target = 1 AND a.t >= s.t0 AND a.t <= s.t0 + \(window) GROUP BY s.actor, s.k)")
            body = ratio("SELECT COUNT(*) AS numerator FROM hit", "SELECT COUNT(*) AS denominator FROM src")
        case .actorShare:
            ctes.append("per AS (SELECT actor, MAX(is_target) AS hit FROM ae WHERE (is_target = 1 OR is_pop = 1) AND t >= \(f) AND t < \(t) GROUP BY actor)")
            body = "SELECT COALESCE(SUM(hit), 0) AS numerator, COUNT(*) AS denominator FROM per"
        case .eventsPerActive:
            body = ratio("SELECT COUNT(*) AS numerator FROM ae WHERE is_target = 1 AND t >= \(f) AND t < \(t)",
                         "SELECT COUNT(*) AS denominator FROM (SELECT actor FROM ae WHERE is_open = 1 AND t >= \(f) AND t < \(t) GROUP BY actor) x")
        case .sessionsWithout:
            ctes.append("ss AS (SELECT session, MAX(is_pop) AS has_pop, MAX(is_exclude) AS bad FROM ae WHERE t >= \(f) AND t < \(t) GROUP BY session)")
            body = "SELECT COALESCE(SUM(CASE WHEN bad = 0 THEN 1 ELSE 0 END), 0) AS numerator, COUNT(*) AS denominator FROM ss WHERE has_pop = 1"
        case .sessionsWithoutReport:
            ctes += Self.reportedSessionCTEs(rows: "ae", install: "inst", session: "session", time: "t", id: "id", flag: "is_exclude", key: "kv")
            // `sr`: the sessions of the range, `unnamed` when a report without the key is among
            // their events in the range (older app builds); `sk`: bad when so or when a report
            // names them (`rep`), last when they hold their install's last event (`ls`).
            ctes.append("sr AS (SELECT session, MAX(CASE WHEN is_exclude = 1 AND kv IS NULL THEN 1 ELSE 0 END) AS unnamed FROM ae WHERE t >= \(f) AND t < \(t) GROUP BY session)")
            let reported = Self.reportedSessionTest(of: "sr", dialect: dialect)
            ctes.append("""
            sk AS (SELECT sr.session AS session, CASE WHEN sr.unnamed = 1 OR \(reported.test) THEN 1 ELSE 0 END AS bad,
                          CASE WHEN ls.session IS NOT NULL THEN 1 ELSE 0 END AS lst
                   FROM sr\(reported.join) LEFT JOIN ls ON ls.session = sr.session)
            """)
            body = "SELECT COALESCE(SUM(CASE WHEN bad = 0 AND lst = 0 THEN 1 ELSE 0 END), 0) AS numerator, "
                + "COALESCE(SUM(CASE WHEN bad = 1 OR lst = 0 THEN 1 ELSE 0 END), 0) AS denominator, "
                + "COALESCE(SUM(CASE WHEN bad = 0 AND lst = 1 THEN 1 ELSE 0 END), 0) AS left_out FROM sk"
        }
        return "WITH\n" + ctes.joined(separator: ",\n") + "\n" + body + dialect.querySuffix
    }

    /// One row from two single-row counts.
    func ratio(_ numerator: String, _ denominator: String) -> String {
        "SELECT nu.numerator AS numerator, de.denominator AS denominator FROM (\(numerator)) nu CROSS JOIN (\(denominator)) de"
    }

    /// Whether the measure's SQL returns a third column, `left_out`, counted in neither numerator
    /// nor denominator: cohort members whose window ends after the data ends (they could still
    /// convert), or unknown sessions (`KPIMeasure/sessionsWithoutReport`: their report could
    /// still come).
    public static func reportsLeftOut(_ measure: KPIMeasure) -> Bool {
        measure == .cohortConversion || measure == .cohortReturn || measure == .sessionsWithoutReport
    }

    /// The two session sets of `KPIMeasure/sessionsWithoutReport` over `rows` (every event, at
    /// any time), shared with the dashboards' `session_share` (``EventQuerySQLBuilder``):
    /// `rep`, the sessions a report (`flag` = 1) names in `key`, at any time — a crash is reported
    /// on the next launch, possibly after the range (CH33 §6.11); `ls`, the sessions holding their
    /// install's last event by (time, id) — no later session of the install exists, so a crash
    /// there would not have been reported yet. A window and GROUP BY, no correlated subquery.
    static func reportedSessionCTEs(rows: String, install: String, session: String, time: String, id: String, flag: String, key: String) -> [String] {
        [
            "rep AS (SELECT \(key) AS session FROM \(rows) WHERE \(flag) = 1 AND \(key) IS NOT NULL GROUP BY \(key))",
            "ls AS (SELECT s AS session FROM (SELECT \(session) AS s, ROW_NUMBER() OVER (PARTITION BY \(install) ORDER BY \(time) DESC, \(id) DESC) AS r FROM \(rows)) x WHERE r = 1 GROUP BY s)",
        ]
    }

    /// `value` where `flag` (a `CASE … THEN 1 ELSE 0 END`) is 1, else NULL, on SQLite; `value`
    /// unchanged on the other dialects. For a column read only on flagged rows (the session a crash
    /// report names): SQLite's `json_extract` parses the properties of every row it is asked
    /// for, 1.46 M parses for 2,823 reports at 20,000 installs (issue 15). Same results: every use
    /// of the column also tests the flag.
    static func onlyWhere(_ flag: String, _ value: String, dialect: SQLDialect) -> String {
        dialect == .sqlite ? "CASE WHEN \(flag) = 1 THEN \(value) END" : value
    }

    /// Whether a session of `sessions` (a CTE with a `session` column) is named by a report, that
    /// is, is in `rep`: the condition, and the join it needs after `FROM sessions`.
    ///
    /// The join (`LEFT JOIN rep …`, `rep.session IS NOT NULL`) is what every engine but SQLite
    /// gets (Spark allows an `IN` subquery only in a filter). SQLite judges `rep` small and runs that
    /// join as a scan of `rep` for every session, without an automatic index: quadratic, 31 s of a
    /// 56 s dashboard render at 20,000 installs (issue 15). On SQLite the condition is
    /// `session IN (SELECT session FROM rep)`, answered from one ephemeral index: the same sets,
    /// the same numbers.
    static func reportedSessionTest(of sessions: String, dialect: SQLDialect) -> (test: String, join: String) {
        dialect == .sqlite
            ? ("\(sessions).session IN (SELECT session FROM rep)", "")
            : ("rep.session IS NOT NULL", " LEFT JOIN rep ON rep.session = \(sessions).session")
    }

    /// `ca`: every row with its actor's install time `t0`, a window over the actor rather than a
    /// join back to the cohort (SQLite would run that join as nested scans, quadratic in actors);
    /// `co`: the cohort, actors whose t0 is in [from, to).
    ///
    /// `t0` is the actor's first stored app_open (`fo`), unless the actor's first-seen time (`fs`,
    /// the earliest `first_app_open_ms` of its installs in ``InstallFirstSeenTable``) is earlier:
    /// then its first app_open is gone — removed by retention, or held by a de-identified past
    /// under another id, which keeps the cohort — and the actor's start is not in the data, so
    /// `t0` is NULL and the actor is in no cohort (issue 32 §6: an old install never lands in a
    /// later cohort). The table's rows join the window as rows of their own (`t` NULL, no flags):
    /// one per install, not a lookup per event. An actor without a row (an empty table, a past
    /// de-identified with its first app_open) keeps `fo`. Over the lake, which holds no table,
    /// `t0` is `fo`.
    func cohortCTEs(_ query: KPIQuery, _ from: String, _ to: String) -> [String] {
        let firstOpen = "MIN(CASE WHEN is_open = 1 THEN t END) OVER (PARTITION BY actor)"
        let ca: String
        if query.source == .table {
            let actor = query.actor == .user ? "COALESCE(um.um_user, f.install_id)" : "f.install_id"
            let join = query.actor == .user ? " LEFT JOIN um ON um.um_install = f.install_id" : ""
            let rows = "SELECT actor, t, is_target, is_open, \(dialect.nullInteger) AS seen FROM ae UNION ALL "
                + "SELECT \(actor) AS actor, \(dialect.nullInteger) AS t, 0 AS is_target, 0 AS is_open, f.first_app_open_ms AS seen "
                + "FROM \(InstallFirstSeenTable.name) f\(join)"
            ca = "ca AS (SELECT actor, t, is_target, CASE WHEN fs < fo THEN \(dialect.nullInteger) ELSE fo END AS t0 "
                + "FROM (SELECT actor, t, is_target, \(firstOpen) AS fo, MIN(seen) OVER (PARTITION BY actor) AS fs FROM (\(rows)) u) w)"
        } else {
            ca = "ca AS (SELECT actor, t, is_target, \(firstOpen) AS t0 FROM ae)"
        }
        return [ca, "co AS (SELECT a.actor AS actor FROM ca a WHERE \(Self.inCohort(from, to)) GROUP BY a.actor)"]
    }

    /// The row's actor is in the cohort.
    static func inCohort(_ from: String, _ to: String) -> String { "a.t0 >= \(from) AND a.t0 < \(to)" }

    /// `um` (with `--actor user`) and `ae`: the rows the measure reads, with flags and values.
    func baseCTEs(_ query: KPIQuery) throws(QueryError) -> [String] {
        let kpi = query.kpi
        let access = PropertyAccess(catalog: catalog, dialect: dialect)
        var ctes: [String] = try query.source.leadingCTEs(dialect)
        var actor = "e.install_id"
        var join = ""
        if query.actor == .user {
            ctes.append(ActorResolution.userMapCTE(dialect))
            actor = "COALESCE(um.um_user, e.install_id)"
            join = " LEFT JOIN um ON um.um_install = e.install_id"
        }
        func flag(_ matches: [EventMatch]) throws(QueryError) -> String {
            guard !matches.isEmpty else { return "0" }
            var parts: [String] = []
            for match in matches { parts.append(try access.matches(events: match.events, filters: match.filters)) }
            return "CASE WHEN \(parts.joined(separator: " OR ")) THEN 1 ELSE 0 END"
        }
        var columns = [
            "\(actor) AS actor", "e.session_id AS session", "e.event_time_ms AS t", "e.event_id AS id",
            "\(try flag([EventMatch(events: [Self.activeEvent])])) AS is_open",
            "\(try flag(kpi.target.map { [$0] } ?? [])) AS is_target",
            "\(try flag(kpi.source.map { [$0] } ?? [])) AS is_source",
            "\(kpi.measure == .sessionsWithout && kpi.population.isEmpty ? "1" : try flag(kpi.population)) AS is_pop",
            "\(try flag(kpi.exclude.map { [$0] } ?? [])) AS is_exclude",
        ]
        columns.append("\(try kpi.property.map { name throws(QueryError) in try access.text(name) } ?? dialect.nullText) AS pv")
        var key = try kpi.key.map { name throws(QueryError) in try access.text(name) } ?? dialect.nullText
        if kpi.measure == .sessionsWithoutReport, let exclude = kpi.exclude {
            // Read only where it is used (the reports): see ``onlyWhere(_:_:dialect:)``.
            key = Self.onlyWhere(try flag([exclude]), key, dialect: dialect)
        }
        columns.append("\(key) AS kv")
        columns.append("\(kpi.measure == .latestValueDistribution ? try access.integer(kpi.property ?? "") : dialect.nullInteger) AS iv")
        var amount = dialect.nullInteger
        if !kpi.sums.isEmpty {
            var cases: [String] = []
            for sum in kpi.sums {
                try PropertyAccess.checkIdentifier(sum.event)
                cases.append("WHEN e.event_name = \(try dialect.literal(sum.event)) THEN \(try access.integer(sum.property))")
            }
            amount = "CASE \(cases.joined(separator: " ")) END"
        }
        columns.append("\(amount) AS amount")
        // The physical install (the actor may be a user): its last session is unknown.
        if kpi.measure == .sessionsWithoutReport { columns.append("e.install_id AS inst") }
        ctes.append("""
        ae AS (
          SELECT \(columns.joined(separator: ",\n         "))
          FROM events e\(join)\(try prefilter(query))
        )
        """)
        return ctes
    }

    /// Whether the measure reads `is_open` (install time or active actors).
    public static func readsActiveEvent(_ measure: KPIMeasure) -> Bool {
        switch measure {
        case .cohortConversion, .cohortMedianTime, .cohortReturn, .weeklyDistinctPerActive, .weeklyActorShare, .eventsPerActive: true
        case .everyWeek, .weeklySumPerActor, .latestValueDistribution, .followedBy, .actorShare, .sessionsWithout, .sessionsWithoutReport: false
        }
    }

    /// Rows the measure can need: its events only (all events for sessions), in the range it
    /// reads. Cohort measures read all time (install time is the first stored app_open), and so does
    /// `sessions_without_report`: every event (an install's last session) and reports after `to`.
    func prefilter(_ query: KPIQuery) throws(QueryError) -> String {
        let kpi = query.kpi
        if kpi.measure == .sessionsWithoutReport { return "" }
        // app_open only where the measure reads it (install time, active actors): it is the most
        // frequent event, so reading it for nothing dominates the other measures' cost.
        var names = Self.readsActiveEvent(kpi.measure) ? [Self.activeEvent] : []
        for match in [kpi.target, kpi.source, kpi.exclude].compactMap({ $0 }) + kpi.population {
            for name in match.events where !names.contains(name) { names.append(name) }
        }
        for sum in kpi.sums where !names.contains(sum.event) { names.append(sum.event) }
        var conditions: [String] = []
        if kpi.measure != .sessionsWithout || !kpi.population.isEmpty {
            conditions.append("e.event_name IN \(try dialect.literalList(names))")
        }
        switch kpi.measure {
        case .cohortConversion, .cohortMedianTime, .cohortReturn: break
        default:
            conditions.append("e.event_time_ms >= \(query.fromMs)")
            conditions.append("e.event_time_ms < \(query.toMs &+ (kpi.windowSeconds ?? 0) * 1000)")
        }
        return conditions.isEmpty ? "" : "\n  WHERE " + conditions.joined(separator: " AND ")
    }
}

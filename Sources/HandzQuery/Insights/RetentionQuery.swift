import HandzAnalyticsCore

/// Retention cohorts (issue 35 §2): actors grouped by the day or week of their install time, and
/// for each period after it, how many came back — "of the installs that arrived in week 10, how
/// many came back in each of the next twelve weeks?". Pure data; the SQL is
/// ``RetentionSQLBuilder``'s, the column engine's walk `HandzColumnStore.ColumnRetention`, and both
/// give a ``RetentionReport``.
///
/// The rules are the KPIs' `cohort_return` (CH33 §5.2, HandzQuery documentation "KPI
/// definitions"), so D1, D7 and D30 read off a day matrix are `retention_d1`, `retention_d7` and
/// `retention_d30` over the same range, to the actor:
/// - **Install time** (`t0`): the actor's first stored `app_open`, unless its first-seen time
///   (`install_first_seen`, issue 32 §6) is earlier — then its start is not in the data and it is
///   in no cohort. The cohorts are the actors whose install time is in `[fromMs, toMs)`, by exact
///   days or weeks from `fromMs`.
/// - **Period n** after install: `[t0 + n·P, t0 + (n+1)·P)` with P = 24 h or 7 × 24 h — each
///   actor's own periods, so no time zone shifts them. Period 0 starts at install time.
/// - **Returned** in period n: an event of `returning` in it (default `app_open`, the KPIs'; or any
///   enabled event of the catalog, ``anyEvent(_:)``).
/// - **Eligible** for period n: its whole period lies within the data (ends by the latest event the
///   query reads); the others are left out of that cell, as the KPIs' `left_out`. A cohort's rate
///   in period n is returned ÷ eligible.
/// - **Actor**: the install, or its user (`--actor user`, CH33 §3.1).
public struct RetentionQuery: Sendable, Equatable {
    public enum Interval: String, Sendable, CaseIterable {
        case day, week

        public var milliseconds: Int64 { self == .day ? EventQuery.dayMs : 7 * EventQuery.dayMs }
        /// Periods 0 … 30 of days, 0 … 12 of weeks.
        public var periods: Int { self == .day ? 31 : 13 }
    }

    public var fromMs: Int64
    public var toMs: Int64
    public var interval: Interval
    public var returning: EventMatch
    public var actor: ActorKind

    /// The most cohorts a matrix has: a year and a bit of days.
    public static let maxCohorts = 400

    public init(fromMs: Int64, toMs: Int64, interval: Interval = .day, returning: EventMatch = EventMatch(events: ["app_open"]), actor: ActorKind = .install) {
        self.fromMs = fromMs
        self.toMs = toMs
        self.interval = interval
        self.returning = returning
        self.actor = actor
    }

    /// "Any event": every enabled event of the catalog, as one match.
    public static func anyEvent(_ catalog: Catalog) -> EventMatch {
        EventMatch(events: catalog.events.filter(\.isEnabled).map(\.name).sorted())
    }

    /// `any` or a returning series in the funnel explorer's step form (`app_open`,
    /// `flow_saved_success|practice_session_started[user_state=pro]`).
    public static func returning(_ text: String, catalog: Catalog) throws(QueryError) -> EventMatch {
        if text == "any" { return anyEvent(catalog) }
        let series = try TrendQuery.series(text, catalog: catalog)
        guard series.count == 1 else { throw .invalidFunnel("retention returns on one series (events joined by |)") }
        return series[0]
    }

    /// The text form of `returning`: `any` for every enabled event.
    public static func text(_ returning: EventMatch, catalog: Catalog) -> String {
        returning == anyEvent(catalog) ? "any" : TrendQuery.text([returning])
    }

    /// Each cohort's first millisecond.
    public var cohortStarts: [Int64] {
        Swift.stride(from: fromMs, to: toMs, by: Int(interval.milliseconds)).map { $0 }
    }

    public func validate(_ catalog: Catalog) throws(QueryError) {
        guard fromMs < toMs else { throw .invalidRange("from must be before to") }
        guard (toMs - fromMs + interval.milliseconds - 1) / interval.milliseconds <= Int64(Self.maxCohorts) else {
            throw .invalidRange("a retention matrix has at most \(Self.maxCohorts) cohorts")
        }
        guard !returning.events.isEmpty else { throw .invalidFunnel("the returning series names at least one event") }
        for name in returning.events {
            try PropertyAccess.checkIdentifier(name)
            guard catalog.event(named: name)?.isEnabled == true else { throw .invalidFunnel("every event must be an enabled event of the catalog") }
        }
    }

    /// The KPI whose rules the matrix follows: `cohort_return` on `returning`, for the stores'
    /// cohort machinery (install time, first-seen times, the data's end) in both engines.
    public var cohortKPI: KPIQuery {
        KPIQuery(kpi: KPIDefinition(id: "retention", measure: .cohortReturn, target: returning, day: 0), fromMs: fromMs, toMs: toMs, actor: actor)
    }
}

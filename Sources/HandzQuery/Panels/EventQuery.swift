import HandzAnalyticsCore

/// A named query for the dashboards of CH33 §7: the shapes a panel needs that are neither a
/// funnel (§5.1) nor a KPI (§5.2) — daily counts, daily rates, top values of a closed set,
/// histograms with quantiles, the daily and rolling share of sessions without an event, and an
/// ad-hoc `followed_by` conversion that reuses the KPI template. Pure data; the SQL is written by
/// ``EventQuerySQLBuilder`` for every dialect.
///
/// Days are exact 24 h periods (86,400 s) counted from `from` (UTC), like the KPIs' weeks, so no
/// figure depends on a time zone. The actor is the install (CH33 §3.1).
public struct EventQuery: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Per day (and per `split` value): events, distinct actors and distinct sessions of `match`.
        case dailyCounts = "daily_counts"
        /// Per day and over the range: `match` over `denominator`, counted as `count`.
        case dailyRatio = "daily_ratio"
        /// Events and actors per combination of closed-set `properties` of `match`.
        case topValues = "top_values"
        /// Buckets of an integer `properties[0]` of `match` (width `bucketWidth`), and its lower quantiles.
        case histogram
        /// Per day and over `rollingDays`-day windows: sessions with any event, and those with
        /// no `match` event — the KPI `sessions_without` per day; with `sessionKey`, the KPI
        /// `sessions_without_report` (crash-free sessions, CH33 §5.2, §7.1): a `match` event at
        /// any time naming the session in `sessionKey` makes it bad, and the unknown sessions (the
        /// install's last, not bad) are counted apart, as `left_out`.
        case sessionShare = "session_share"
        /// Share of (actor) opportunities from `match` followed by `target` within `windowSeconds`
        /// (the KPI measure `followed_by`, with events the catalog's KPIs do not name).
        case followedBy = "followed_by"
    }

    /// What a count counts.
    public enum Count: String, Sendable, CaseIterable {
        case events, actors, sessions
    }

    public var kind: Kind
    public var match: EventMatch
    public var denominator: EventMatch?
    public var target: EventMatch?
    public var count: Count
    /// `daily_counts`: one series per value of this closed-set property.
    public var split: String?
    /// `top_values`: closed-set properties; `histogram`: one integer property.
    public var properties: [String]
    /// `daily_counts`: count only each `firstPerKey` value's first event ever (flows created =
    /// the first save of each flow_id).
    public var firstPerKey: String?
    public var bucketWidth: Int64
    /// Percent, e.g. [50, 90]: the lower quantile, the value at position ⌈q·n/100⌉.
    public var quantiles: [Int64]
    public var rollingDays: Int64
    public var windowSeconds: Int64
    /// `session_share`: the `match` events' uuid property naming the session they report
    /// (`crashed_session_id`; `KPIMeasure/sessionsWithoutReport`'s `key`).
    public var sessionKey: String?

    public init(kind: Kind, match: EventMatch, denominator: EventMatch? = nil, target: EventMatch? = nil, count: Count = .events,
                split: String? = nil, properties: [String] = [], firstPerKey: String? = nil, bucketWidth: Int64 = 1,
                quantiles: [Int64] = [], rollingDays: Int64 = 7, windowSeconds: Int64 = 604_800, sessionKey: String? = nil) {
        self.kind = kind
        self.match = match
        self.denominator = denominator
        self.target = target
        self.count = count
        self.split = split
        self.properties = properties
        self.firstPerKey = firstPerKey
        self.bucketWidth = bucketWidth
        self.quantiles = quantiles
        self.rollingDays = rollingDays
        self.windowSeconds = windowSeconds
        self.sessionKey = sessionKey
    }

    public static let dayMs: Int64 = 86_400_000

    /// Every event name the query reads.
    public var events: [String] {
        var names: [String] = []
        for match in [match, denominator, target].compactMap({ $0 }) {
            for name in match.events where !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The `followed_by` KPI this query stands for (the KPI module's template and semantics).
    public func followedByKPI(id: String) -> KPIDefinition {
        KPIDefinition(id: id, measure: .followedBy, target: target, source: match, windowSeconds: windowSeconds)
    }
}

/// One statement of an event query: which part of the answer it returns, and its SQL.
public struct EventStatement: Sendable, Equatable {
    public enum Part: String, Sendable {
        /// `(day, series, events, actors, sessions)`.
        case daily
        /// `(day, numerator, denominator)`; day −1 is the whole range.
        case ratio
        /// `(v1, v2, …, events, actors)`.
        case values
        /// `(bucket, n)`.
        case buckets
        /// `(q, value)`.
        case quantiles
        /// `(days, day, good, total, left_out)` over the sessions with events in the `days` days
        /// ending with `day` (clipped to `from`): `total` the known ones, `good` those of them
        /// without a `match` event, `left_out` the unknown ones (only with `sessionKey`, else 0);
        /// `days` is 1 and `rollingDays`.
        case sessions
        /// `(numerator, denominator)` of the `followed_by` KPI.
        case conversion
    }

    public var part: Part
    public var sql: String
}

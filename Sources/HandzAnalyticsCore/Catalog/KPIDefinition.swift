/// A KPI of CH33 §5.2 as data: a measure (one of a closed set of SQL templates, see
/// `HandzQuery.KPISQLBuilder`), the events it reads, and its written definition.
public struct KPIDefinition: Sendable, Equatable {
    public var id: String
    public var title: String
    public var spec: String
    public var measure: KPIMeasure
    /// The events the KPI counts (the numerator's, or the cohort's goal).
    public var target: EventMatch?
    /// `followed_by`: the events that start an opportunity.
    public var source: EventMatch?
    /// `actor_share` / `sessions_without`: who is in the denominator (any of these).
    public var population: [EventMatch]
    /// `sessions_without`: a session with any of these events does not count as good.
    public var exclude: EventMatch?
    /// The property a measure reads: distinct values counted, or the distribution's value.
    public var property: String?
    /// The property that ties events together (`share_link_id`, `import_id`, `flow_id`); for
    /// `sessions_without_report`, the `exclude` events' property naming the reported session.
    public var key: String?
    /// `weekly_sum_per_actor`: integer properties summed, per event.
    public var sums: [KPISum]
    /// Exact duration, seconds.
    public var windowSeconds: Int64?
    /// `cohort_return`: day N after install.
    public var day: Int64?
    /// The value is numerator / denominator / divisor (60: seconds → minutes).
    public var divisor: Int64
    public var unit: String?
    public var definition: KPIText
    /// Why the KPI approximates the spec, when it does.
    public var note: String?

    public init(id: String, title: String = "", spec: String = "", measure: KPIMeasure, target: EventMatch? = nil, source: EventMatch? = nil,
                population: [EventMatch] = [], exclude: EventMatch? = nil, property: String? = nil, key: String? = nil, sums: [KPISum] = [],
                windowSeconds: Int64? = nil, day: Int64? = nil, divisor: Int64 = 1, unit: String? = nil,
                definition: KPIText = KPIText(), note: String? = nil) {
        self.id = id
        self.title = title
        self.spec = spec
        self.measure = measure
        self.target = target
        self.source = source
        self.population = population
        self.exclude = exclude
        self.property = property
        self.key = key
        self.sums = sums
        self.windowSeconds = windowSeconds
        self.day = day
        self.divisor = divisor
        self.unit = unit
        self.definition = definition
        self.note = note
    }
}

/// The closed set of KPI measures; each is one SQL template (HandzQuery docs, "KPI definitions").
public enum KPIMeasure: String, Sendable, CaseIterable {
    /// Share of the install cohort (first app_open in [from, to)) reaching `target` within `window`.
    case cohortConversion = "cohort_conversion"
    /// Lower median of (first `target` at or after install time − install time) over the cohort.
    case cohortMedianTime = "cohort_median_time"
    /// Share of the cohort with `target` in [install + N days, install + N+1 days).
    case cohortReturn = "cohort_return"
    /// Of the actors with a `population` event in the whole weeks of the range (practice
    /// retention: an app_open, the active users of CH33 §5.2's "% users"), the share with `target`
    /// in every one of them; without a population, of the actors with `target` in some week.
    case everyWeek = "every_week"
    /// Distinct `property` values of `target` per active actor-week.
    case weeklyDistinctPerActive = "weekly_distinct_per_active"
    /// Summed `sums` per actor-week with `target`, divided by `divisor`.
    case weeklySumPerActor = "weekly_sum_per_actor"
    /// Distribution of `property` on the latest `target` per `key`.
    case latestValueDistribution = "latest_value_distribution"
    /// Share of active actor-weeks with `target`.
    case weeklyActorShare = "weekly_actor_share"
    /// Share of (actor, key) opportunities from `source` followed by `target` within `window`.
    case followedBy = "followed_by"
    /// Share of actors with `target`, among actors with `target` or a `population` event.
    case actorShare = "actor_share"
    /// `target` events per active actor.
    case eventsPerActive = "events_per_active"
    /// Share of sessions (with a `population` event, or any) having no `exclude` event.
    case sessionsWithout = "sessions_without"
    /// Share of known sessions with no `exclude` event naming them in `key` (a report sent later,
    /// from another session: crash_reported on the next launch, CH33 §6.11). A session is bad when
    /// a report at any time names it, or when a report without `key` (older app builds) is among
    /// its events in the range; a session that is not bad and is its install's last is unknown —
    /// its report could still come — and is left out (`left_out`). A measure of its own rather
    /// than an option of `sessions_without`: it reads every event at any time, and
    /// `sessions_without` (builder_fps_good_sessions) keeps its numbers and its two columns.
    case sessionsWithoutReport = "sessions_without_report"
}

/// Events, optionally restricted by property filters (all must hold).
public struct EventMatch: Sendable, Equatable {
    public var events: [String]
    public var filters: [PropertyFilter]

    public init(events: [String], filters: [PropertyFilter] = []) {
        self.events = events
        self.filters = filters
    }
}

/// One summed integer property on one event.
public struct KPISum: Sendable, Equatable {
    public var event: String
    public var property: String

    public init(event: String, property: String) {
        self.event = event
        self.property = property
    }
}

/// The written definition that sits next to every KPI.
public struct KPIText: Sendable, Equatable {
    public var numerator: String
    public var denominator: String
    public var actor: String
    public var timeBasis: String

    public init(numerator: String = "", denominator: String = "", actor: String = "", timeBasis: String = "") {
        self.numerator = numerator
        self.denominator = denominator
        self.actor = actor
        self.timeBasis = timeBasis
    }
}

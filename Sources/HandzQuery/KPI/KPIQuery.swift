import HandzAnalyticsCore

/// One KPI run: a definition of CH33 §5.2, the range [from, to) (UTC) and the actor.
public struct KPIQuery: Sendable, Equatable {
    public var kpi: KPIDefinition
    public var fromMs: Int64
    public var toMs: Int64
    public var actor: ActorKind
    /// The `events` table, or the exported lake (``EventSource``).
    public var source: EventSource

    public init(kpi: KPIDefinition, fromMs: Int64, toMs: Int64, actor: ActorKind = .install, source: EventSource = .table) {
        self.kpi = kpi
        self.fromMs = fromMs
        self.toMs = toMs
        self.actor = actor
        self.source = source
    }

    /// Weeks are whole 7-day periods (604,800 s, exact) counted from `from`.
    public static let weekMs: Int64 = 604_800_000
    public var wholeWeeks: Int64 { (toMs - fromMs) / Self.weekMs }
    /// The end of the last whole week.
    public var weeksEndMs: Int64 { fromMs + wholeWeeks * Self.weekMs }
}

/// What a KPI's SQL returns, by measure.
public enum KPIShape: Sendable {
    /// One row: `numerator`, `denominator` (integers), and for the cohort measures with a window
    /// and `sessions_without_report` `left_out` (``KPISQLBuilder/reportsLeftOut(_:)``); value =
    /// numerator / denominator / divisor.
    case ratio
    /// One row: `median_ms` (lower median, integer ms, NULL when empty), `actors`.
    case median
    /// Rows: `bucket` (integer), `flows` (count), ordered by bucket.
    case distribution

    public init(_ measure: KPIMeasure) {
        switch measure {
        case .cohortMedianTime: self = .median
        case .latestValueDistribution: self = .distribution
        default: self = .ratio
        }
    }
}

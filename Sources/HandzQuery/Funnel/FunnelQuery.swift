import HandzAnalyticsCore

/// Who a funnel or KPI counts.
public enum ActorKind: String, Sendable, CaseIterable {
    /// `install_id` (the default): a guest who signs up stays one actor (F1).
    case install
    /// Each install resolved to its user_id where one is known: the first user_id the install
    /// ever carried, in event order; installs that never carried one stay themselves.
    case user
}

/// One funnel run: a definition and the parameters of CH33 §5.1 analysis.
///
/// The semantics (HandzQuery docs, "Funnel semantics"), which the SQL of every dialect implements:
/// - per actor, events are totally ordered by (`event_time_utc`, `event_id`);
/// - an **entry** is a step-1 event with time in [`fromMs`, `toMs`); later steps may fall after
///   `toMs`, up to the window;
/// - from each entry the chain is built greedily: step k is the earliest event (in that order)
///   after step k−1's event that matches step k, with time ≤ entry time + window (inclusive);
///   one event never fills two steps;
/// - the actor's level is the maximum over its entries; the reported chain is the one with
///   that level and the earliest entry;
/// - the breakdown value is the property on the reported chain's entry event (NULL is a bucket).
public struct FunnelQuery: Sendable, Equatable {
    public var funnel: FunnelDefinition
    public var fromMs: Int64
    public var toMs: Int64
    /// An exact duration in milliseconds (7d = 604,800,000 ms), never calendar arithmetic.
    public var windowMs: Int64
    public var actor: ActorKind
    /// The `events` table, or the exported lake (``EventSource``).
    public var source: EventSource
    /// A closed-set property (enum or boolean) carried by step 1's events, or nil.
    public var breakdown: String?
    /// With a breakdown: the values kept, by actors entering (step 1), before the rest are folded
    /// into one "other" bucket whose actors are the actors of every other value — never a sum of
    /// rates, and its medians are of its own chains (``FunnelEvaluator``, ``BreakdownLimit``).
    /// Nil (the CLI's default and every dialect's SQL): every value.
    public var breakdownLimit: Int?
    /// Conversion over time (issue 35 §3): the funnel counted per UTC day of entry — each
    /// (actor, day) is one funnel of its own, walked from that day's entries only, so an actor
    /// who enters on three days counts on each. The result's breakdown rows carry the day (days
    /// since 1970-01-01, as text) instead of a property's value; no breakdown with it.
    public var byEntryDay: Bool = false

    public init(funnel: FunnelDefinition, fromMs: Int64, toMs: Int64, windowMs: Int64? = nil, actor: ActorKind = .install, breakdown: String? = nil, source: EventSource = .table) {
        self.funnel = funnel
        self.fromMs = fromMs
        self.toMs = toMs
        self.windowMs = windowMs ?? funnel.windowSeconds * 1000
        self.actor = actor
        self.breakdown = breakdown
        self.source = source
    }
}

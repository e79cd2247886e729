import HandzAnalyticsCore

/// Analytics QA as code: the CH33 §8.2 pre-release checklist and the event-level acceptance
/// tests of CH33 §13, as sequence rules over a captured event stream.
///
/// A rule is data (`catalog/qa/*.yaml`, read by `HandzCatalog`); this module is pure — rules and
/// events in, violations out, no I/O — so the same engine runs behind `handz-analytics qa`, the
/// tests and the benchmark.
public struct QARule: Sendable, Equatable {
    /// Stable id, `group.name` (for example `cold_start.app_open_once`).
    public var id: String
    /// What the rule checks, in words (printed with each failure; never holds event values).
    public var title: String
    /// The spec section it comes from, e.g. "CH33 §8.2 Cold start".
    public var spec: String
    public var kind: QARuleKind

    public init(id: String, title: String, spec: String, kind: QARuleKind) {
        self.id = id
        self.title = title
        self.spec = spec
        self.kind = kind
    }
}

/// Where a rule looks: one session or one install. Events inside a scope are ordered by
/// (`event_time_utc`, `event_id`), the order the funnels use. (`funnel_completeness` looks at
/// the whole stream.)
public enum QAScope: String, Sendable, Equatable, CaseIterable {
    case session, install
}

/// A set of events: any of `events`, with every `where` filter holding (`where` values as written
/// in the catalog; booleans `true`/`false`). Filters may name `user_state` from the envelope.
public struct EventPattern: Sendable, Equatable, CustomStringConvertible {
    public var events: [String]
    public var filters: [PropertyFilter]

    public init(events: [String], filters: [PropertyFilter] = []) {
        self.events = events
        self.filters = filters
    }

    /// `gate_result{result=blocked}` — names and catalog values only, never an event's values.
    public var description: String {
        let names = events.count == 1 ? events[0] : "(" + events.joined(separator: "|") + ")"
        guard !filters.isEmpty else { return names }
        return names + "{" + filters.map { "\($0.property)=\($0.values.joined(separator: "|"))" }.joined(separator: ", ") + "}"
    }
}

/// The rule kinds of the QA rule language (HandzQA docs, "Rule language").
public enum QARuleKind: Sendable, Equatable {
    /// Every unit (a scope, split after each `resetAfter` event) that holds any event holds
    /// exactly one `event`. CH33 §8.2 "app_open emits exactly once".
    case exactlyOncePer(event: EventPattern, scope: QAScope, resetAfter: [EventPattern])
    /// Every `event` is followed, in the same scope and within `withinMs`, by one of `then`
    /// (equal on every `same` property the target carries).
    case followedBy(event: EventPattern, then: [EventPattern], withinMs: Int64, scope: QAScope, same: [String])
    /// Every `event` is preceded, in the same scope and within `withinMs`, by one of `after`.
    case precededBy(event: EventPattern, after: [EventPattern], withinMs: Int64, scope: QAScope, same: [String])
    /// Every `event` has, in the same session and at most `withinMs` away (either side), an event
    /// of each of `with` (equal on every `same` property both carry).
    case emittedTogether(event: EventPattern, with: [EventPattern], withinMs: Int64, same: [String])
    /// Each `event` carries `property` equal to the previous `event`'s `equalsPrevious` in the
    /// same scope; the first one in the scope does not carry `property` (CH33 §13).
    case chain(event: EventPattern, property: String, equalsPrevious: String, scope: QAScope)
    /// No event while `property` (an envelope boolean) is `value`: from the first event that
    /// carries it until one carries the other value again (CH33 §2.2, §8.2).
    case silenceWhile(property: String, value: Bool, scope: QAScope)
    /// Each `event`'s `property` is the previous one's minus `by`; a `resetEvent` sets the
    /// expected next value from its `resetProperty` (CH33 §8.2 credits).
    case decrement(event: EventPattern, property: String, by: Int64, resetEvent: EventPattern?, resetProperty: String?, scope: QAScope)
    /// Two `event`s in one scope are at least `intervalMs` apart.
    case minInterval(event: EventPattern, intervalMs: Int64, scope: QAScope)
    /// Every step of each funnel is reached by at least one install, computed as the funnel is
    /// (CH33 §13 "F0–F4 can be computed from events without missing steps").
    case funnelCompleteness(funnels: [String])
    /// Every event is a catalogued, enabled event (CH33 §6 Authority, §13 allowlist).
    case catalogued
}

extension QARuleKind {
    /// The kind's name in the rule language.
    public var name: String {
        switch self {
        case .exactlyOncePer: "exactly_once_per"
        case .followedBy: "followed_by"
        case .precededBy: "preceded_by"
        case .emittedTogether: "emitted_together"
        case .chain: "chain"
        case .silenceWhile: "silence_while"
        case .decrement: "decrement"
        case .minInterval: "min_interval"
        case .funnelCompleteness: "funnel_completeness"
        case .catalogued: "catalogued"
        }
    }

    public static let names = ["exactly_once_per", "followed_by", "preceded_by", "emitted_together", "chain", "silence_while",
                               "decrement", "min_interval", "funnel_completeness", "catalogued"]
}

/// A checklist bullet that cannot be checked from events, and why (kept in the rule file so the
/// checklist stays complete).
public struct QAUncheckedItem: Sendable, Equatable {
    public var spec: String
    public var item: String
    public var why: String

    public init(spec: String, item: String, why: String) {
        self.spec = spec
        self.item = item
        self.why = why
    }
}

/// Every rule and every unchecked bullet, as read from the rule files.
public struct QARuleSet: Sendable, Equatable {
    public var rules: [QARule]
    public var unchecked: [QAUncheckedItem]

    public init(rules: [QARule], unchecked: [QAUncheckedItem] = []) {
        self.rules = rules
        self.unchecked = unchecked
    }
}

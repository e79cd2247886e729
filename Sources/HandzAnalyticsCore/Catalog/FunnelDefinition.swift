/// A funnel of CH33 §5.1 as data: ordered steps, each matching one of several events with
/// optional property filters.
public struct FunnelDefinition: Sendable, Equatable {
    public var id: String
    public var title: String
    public var spec: String
    /// The default conversion window, in seconds (an exact duration, never calendar arithmetic).
    public var windowSeconds: Int64
    /// The spec's success definition, in words.
    public var success: String
    /// The success definition as a checkable condition, reported as the row after the last step
    /// (HandzQuery docs, "Funnel semantics"); nil only for funnels built in code without one.
    public var successCondition: FunnelSuccess?
    public var steps: [FunnelStep]

    /// The most steps a funnel may have: the chain walk and the ClickHouse funnel SQL keep an
    /// event's steps, and the success condition, as bits of a 32-bit mask. `catalog lint` and the
    /// query builders enforce it.
    public static let maxSteps = 31

    public init(id: String, title: String, spec: String, windowSeconds: Int64, success: String, successCondition: FunnelSuccess? = nil, steps: [FunnelStep]) {
        self.id = id
        self.title = title
        self.spec = spec
        self.windowSeconds = windowSeconds
        self.success = success
        self.successCondition = successCondition
        self.steps = steps
    }

    /// The step that hands the funnel to another actor (`actor: other`), 0-based; nil for a
    /// funnel every step of which one actor reaches.
    public var handoffIndex: Int? { steps.firstIndex { $0.otherActor } }
}

/// A funnel's success (CH33 §5.1 "Success: …") as data: an event matching `events` and
/// `filters`, by the actor of step `afterStep`, strictly after that step's event on the reported
/// chain and within the funnel's window from the entry.
public struct FunnelSuccess: Sendable, Equatable {
    /// Empty: any event (the filters alone decide, e.g. F1's `user_state: [free]`).
    public var events: [String]
    public var filters: [PropertyFilter]
    /// 1-based: the step whose event the success must follow (F0: 1, the others: the last).
    public var afterStep: Int
    /// The success event's property must differ from a step event's property (F2: a flow other
    /// than the one the import created), or nil.
    public var differs: FunnelLink?

    public init(events: [String], filters: [PropertyFilter] = [], afterStep: Int, differs: FunnelLink? = nil) {
        self.events = events
        self.filters = filters
        self.afterStep = afterStep
        self.differs = differs
    }
}

/// A link from one event to the event of an earlier step through an id both carry: this event's
/// `property` equals (or, for ``FunnelSuccess/differs``, differs from) `stepProperty` on step
/// `step`'s event (F2: `share_link_id` from the sender's link to the receiver's open).
public struct FunnelLink: Sendable, Equatable {
    /// 1-based step number.
    public var step: Int
    public var property: String
    public var stepProperty: String

    public init(step: Int, property: String, stepProperty: String? = nil) {
        self.step = step
        self.property = property
        self.stepProperty = stepProperty ?? property
    }
}

/// One funnel step: any of `events`, restricted by `filters` (all must hold).
public struct FunnelStep: Sendable, Equatable {
    /// The name §5.1 gives the step, when it differs from the events that implement it.
    public var specName: String?
    public var events: [String]
    public var filters: [PropertyFilter]
    /// Why a §5.1 step name maps to these events.
    public var resolution: String?
    /// `actor: other`: the step is reached by an actor other than the one of the steps before it
    /// (F2's receiver); it must carry a ``link`` to an earlier step. Every later step belongs to
    /// that other actor.
    public var otherActor: Bool
    /// The step's event must carry the linked step event's id (F2: `share_link_id`, `import_id`).
    public var link: FunnelLink?

    public init(specName: String? = nil, events: [String], filters: [PropertyFilter] = [], resolution: String? = nil,
                otherActor: Bool = false, link: FunnelLink? = nil) {
        self.specName = specName
        self.events = events
        self.filters = filters
        self.resolution = resolution
        self.otherActor = otherActor
        self.link = link
    }
}

/// `property` must equal one of `values` (strings as written in the catalog; booleans as
/// `true`/`false`).
public struct PropertyFilter: Sendable, Equatable {
    public var property: String
    public var values: [String]

    public init(property: String, values: [String]) {
        self.property = property
        self.values = values
    }
}

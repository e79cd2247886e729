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
    /// How the steps must follow one another (issue 35 §3; HandzQuery docs, "Funnel semantics"):
    /// in order with anything between them (the default), in order with nothing between them, or
    /// in any order.
    public var order: FunnelOrder
    /// Events that drop a chain when one falls between two of its steps (issue 35 §3).
    public var exclusions: [FunnelExclusion]

    /// The most steps a funnel may have: the chain walk and the ClickHouse funnel SQL keep an
    /// event's steps, and the success condition, as bits of a 32-bit mask. `catalog lint` and the
    /// query builders enforce it.
    public static let maxSteps = 31

    public init(id: String, title: String, spec: String, windowSeconds: Int64, success: String, successCondition: FunnelSuccess? = nil, steps: [FunnelStep],
                order: FunnelOrder = .sequential, exclusions: [FunnelExclusion] = []) {
        self.id = id
        self.title = title
        self.spec = spec
        self.windowSeconds = windowSeconds
        self.success = success
        self.successCondition = successCondition
        self.steps = steps
        self.order = order
        self.exclusions = exclusions
    }

    /// The step that hands the funnel to another actor (`actor: other`), 0-based; nil for a
    /// funnel every step of which one actor reaches.
    public var handoffIndex: Int? { steps.firstIndex { $0.otherActor } }

    /// A single-actor funnel whose steps after the first each link to step 1 (F4: every step is
    /// of the plan step 1 created, CH33 §5.1): each entry's chain takes only events carrying its
    /// step-1 event's id. Nil for other funnels; otherwise, per event name, the property that
    /// carries the id on that event (step 1's `step_property`, a later step's `property`).
    /// `catalog lint` checks the shape: every later step links to step 1 by one `step_property`,
    /// and an event in several steps carries the id in one property.
    public var chainKey: [(event: String, property: String)]? {
        guard handoffIndex == nil, steps.count >= 2, let first = steps[1].link, first.step == 1,
              steps.dropFirst().allSatisfy({ $0.link?.step == 1 && $0.link?.stepProperty == first.stepProperty }) else { return nil }
        var out: [(event: String, property: String)] = []
        for (index, step) in steps.enumerated() {
            let property = index == 0 ? first.stepProperty : step.link!.property
            for event in step.events where !out.contains(where: { $0.event == event }) { out.append((event, property)) }
        }
        return out
    }
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
    /// The success event must be the actor's first success event, over all stored data, with
    /// its value of this property (F2 `first_by: flow_id`: the flow's first save, so a flow the
    /// receiver creates, not a re-save of an older one), or nil.
    public var firstBy: String?

    public init(events: [String], filters: [PropertyFilter] = [], afterStep: Int, differs: FunnelLink? = nil, firstBy: String? = nil) {
        self.events = events
        self.filters = filters
        self.afterStep = afterStep
        self.differs = differs
        self.firstBy = firstBy
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

/// How a funnel's steps must follow one another (`order:` in `catalog/funnels.yaml`,
/// `--order` on the command line, the explorer's "Order").
public enum FunnelOrder: String, Sendable, Equatable, CaseIterable {
    /// Step k+1 is the earliest match after step k; other events may fall between (the default).
    case sequential
    /// Step k+1 must be the actor's very next event after step k: any other event between them,
    /// catalogued in any funnel or not, ends the chain.
    case strict
    /// The steps in any order: an entry is an event of any step, and the level is how many
    /// different steps the actor does from it within the window.
    case any
}

/// An exclusion step (`exclude:` in `catalog/funnels.yaml`, `--exclude` on the command line):
/// a chain is dropped when an event matching `events` and `filters` falls strictly between its
/// step-k and step-(k+1) events, for some k in `fromStep..<toStep` that the chain reached.
public struct FunnelExclusion: Sendable, Equatable {
    public var events: [String]
    public var filters: [PropertyFilter]
    /// 1-based; the gaps between steps `fromStep` and `toStep` are watched. Default: 1…n.
    public var fromStep: Int
    public var toStep: Int

    public init(events: [String], filters: [PropertyFilter] = [], fromStep: Int, toStep: Int) {
        self.events = events
        self.filters = filters
        self.fromStep = fromStep
        self.toStep = toStep
    }
}

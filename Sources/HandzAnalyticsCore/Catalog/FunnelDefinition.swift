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
    public var steps: [FunnelStep]

    /// The most steps a funnel may have: the chain walk and the ClickHouse funnel SQL keep an
    /// event's steps as bits of a 32-bit mask. `catalog lint` and the query builders enforce it.
    public static let maxSteps = 32

    public init(id: String, title: String, spec: String, windowSeconds: Int64, success: String, steps: [FunnelStep]) {
        self.id = id
        self.title = title
        self.spec = spec
        self.windowSeconds = windowSeconds
        self.success = success
        self.steps = steps
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

    public init(specName: String? = nil, events: [String], filters: [PropertyFilter] = [], resolution: String? = nil) {
        self.specName = specName
        self.events = events
        self.filters = filters
        self.resolution = resolution
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

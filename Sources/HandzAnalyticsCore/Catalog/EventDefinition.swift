/// Whether a catalogued event may ship. Placeholders are listed so they can be reviewed, but
/// stay disabled until enabled (CH33 §6 "Authority").
public enum EventStatus: String, Sendable {
    case enabled
    case placeholder
}

/// One catalogued event.
public struct EventDefinition: Sendable, Equatable {
    public var name: String
    public var status: EventStatus
    /// The §4 domain this event belongs to.
    public var domain: String
    public var description: String
    /// Where the event comes from, e.g. "CH33 §6.5" or "CH08 §9".
    public var spec: String
    /// The event's own properties (inside `properties`), in catalog order.
    public var properties: [EventPropertyRule]
    /// Global properties §6 lists for this event; the envelope carries them (CH33 §3.2).
    public var globalProperties: [String]
    /// Why the event was added or mapped, when it does not come from §6 directly.
    public var note: String?

    public init(
        name: String, status: EventStatus = .enabled, domain: String, description: String = "", spec: String,
        properties: [EventPropertyRule] = [], globalProperties: [String] = [], note: String? = nil
    ) {
        self.name = name
        self.status = status
        self.domain = domain
        self.description = description
        self.spec = spec
        self.properties = properties
        self.globalProperties = globalProperties
        self.note = note
    }

    public var isEnabled: Bool { status == .enabled }
}

/// How one event uses a catalogued property: required or not, optionally narrowed to a subset
/// of the property's values or range (e.g. `flow_saved_blocked.gate_name`, CH33 §6.5).
public struct EventPropertyRule: Sendable, Equatable {
    public var name: String
    public var isRequired: Bool
    public var allowedValues: [String]?
    public var minimum: Int64?
    public var maximum: Int64?

    public init(name: String, isRequired: Bool, allowedValues: [String]? = nil, minimum: Int64? = nil, maximum: Int64? = nil) {
        self.name = name
        self.isRequired = isRequired
        self.allowedValues = allowedValues
        self.minimum = minimum
        self.maximum = maximum
    }
}

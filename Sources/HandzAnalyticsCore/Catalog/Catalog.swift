/// The canonical event catalog: the single authority on which events exist, which properties
/// they carry and with what types (CH33 §6 "Event Catalog Authority").
///
/// A `Catalog` is plain data. `HandzCatalog` reads it from the reviewed YAML files in `catalog/`;
/// ``CompiledCatalog`` turns it into the lookup tables the validator runs on.
public struct Catalog: Sendable, Equatable {
    /// The reviewed version of the catalog, stored with every accepted event.
    public var version: String
    /// Hard limits on the shape of one event.
    public var limits: CatalogLimits
    /// Every property the pipeline knows, by name: the envelope, the common properties and
    /// every event-specific property (CH33 §3.2, §6).
    public var properties: [String: PropertyDefinition]
    /// Properties that sit at the top level of every event (CH33 §3.2 plus `event_id`, `user_id`).
    public var envelope: EnvelopeDefinition
    /// Every catalogued event, in catalog order.
    public var events: [EventDefinition]
    /// The naming standard of CH33 §4 and its named exceptions.
    public var naming: NamingStandard
    /// PII key denylist and the reviewed identifiers that are allowed despite a denied token.
    public var privacy: PrivacyPolicy
    /// The IANA time zone names accepted by the `iana_time_zone` format.
    public var timeZones: [String]
    /// Funnels F0–F4 of CH33 §5.1.
    public var funnels: [FunnelDefinition]
    /// The KPIs of CH33 §5.2.
    public var kpis: [KPIDefinition]
    /// Released catalog versions whose apps' events are refused (`catalog_version_retired`) and
    /// whose apps the client config tells to stop sending (docs/catalog-releases.md).
    public var retiredVersions: [String]

    public init(
        version: String,
        limits: CatalogLimits = CatalogLimits(),
        properties: [String: PropertyDefinition],
        envelope: EnvelopeDefinition,
        events: [EventDefinition],
        naming: NamingStandard,
        privacy: PrivacyPolicy,
        timeZones: [String],
        funnels: [FunnelDefinition] = [],
        kpis: [KPIDefinition] = [],
        retiredVersions: [String] = []
    ) {
        self.version = version
        self.limits = limits
        self.properties = properties
        self.envelope = envelope
        self.events = events
        self.naming = naming
        self.privacy = privacy
        self.timeZones = timeZones
        self.funnels = funnels
        self.kpis = kpis
        self.retiredVersions = retiredVersions
    }

    /// The event with this name, if catalogued.
    public func event(named name: String) -> EventDefinition? {
        events.first { $0.name == name }
    }

    /// Every property an event may carry inside its `properties` object, with the rule that
    /// applies to it on that event: its own declarations first, then the common optional ones.
    public func allowedProperties(of event: EventDefinition) -> [EventPropertyRule] {
        var rules = event.properties
        let declared = Set(rules.map(\.name))
        for name in envelope.commonOptional where !declared.contains(name) {
            rules.append(EventPropertyRule(name: name, isRequired: false))
        }
        return rules
    }

    /// The definition a rule refers to, with the rule's per-event narrowing applied.
    public func effectiveDefinition(of rule: EventPropertyRule) -> PropertyDefinition? {
        guard var definition = properties[rule.name] else { return nil }
        if let values = rule.allowedValues { definition.allowedValues = values }
        if let minimum = rule.minimum { definition.minimum = minimum }
        if let maximum = rule.maximum { definition.maximum = maximum }
        return definition
    }
}

/// Hard limits that bound the work the validator does on one event (CH33 §10 abuse limits).
public struct CatalogLimits: Sendable, Equatable {
    /// An event larger than this many bytes is rejected as `too_large` without being parsed.
    public var maxEventBytes: Int
    /// The root object is depth 1, `properties` depth 2. No catalogued property is a container,
    /// so any deeper container is a `type_mismatch`; beyond `maxScanDepth` it is `too_large`.
    public var maxNestingDepth: Int
    /// Containers nested deeper than this inside a rejected value stop the scan (`too_large`).
    public var maxScanDepth: Int
    /// A hostile event can break many rules; a verdict lists at most this many issues.
    public var maxIssuesPerEvent: Int

    public init(maxEventBytes: Int = 32_768, maxNestingDepth: Int = 2, maxScanDepth: Int = 64, maxIssuesPerEvent: Int = 64) {
        self.maxEventBytes = maxEventBytes
        self.maxNestingDepth = maxNestingDepth
        self.maxScanDepth = maxScanDepth
        self.maxIssuesPerEvent = maxIssuesPerEvent
    }
}

/// The top-level shape of every event (CH33 §3.2).
public struct EnvelopeDefinition: Sendable, Equatable {
    /// Top-level properties every event must carry: the §3.2 globals and `event_id`.
    public var required: [String]
    /// Top-level properties an event may carry (`user_id`, only when signed in, CH33 §9).
    public var optional: [String]
    /// Properties allowed inside `properties` on every event, always optional.
    public var commonOptional: [String]

    public init(required: [String], optional: [String], commonOptional: [String]) {
        self.required = required
        self.optional = optional
        self.commonOptional = commonOptional
    }

    /// The name of the top-level object that holds event-specific properties.
    public static let propertiesKey = "properties"
}

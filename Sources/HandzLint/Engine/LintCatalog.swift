import HandzAnalyticsCore

/// The catalog as app code sees it: events by name and by generated type name, the properties
/// each event may carry, and the generated label of every property. Built once per run.
public struct LintCatalog: Sendable {
    public let catalog: Catalog
    let keyLint: PIIKeyLint
    private let eventsByName: [String: EventDefinition]
    private let eventNamesByTypeName: [String: String]
    /// Per event: every property it may carry (its own and the common ones, CH33 §3.2).
    private let allowedProperties: [String: Set<String>]
    private let propertyNamesByLabel: [String: String]

    public init(_ catalog: Catalog) {
        self.catalog = catalog
        keyLint = PIIKeyLint(policy: catalog.privacy)
        var byName: [String: EventDefinition] = [:]
        var byType: [String: String] = [:]
        var allowed: [String: Set<String>] = [:]
        for event in catalog.events {
            byName[event.name] = event
            byType[EventNaming.typeName(ofEvent: event.name)] = event.name
            allowed[event.name] = Set(catalog.allowedProperties(of: event).map(\.name))
        }
        eventsByName = byName
        eventNamesByTypeName = byType
        allowedProperties = allowed
        propertyNamesByLabel = Dictionary(
            catalog.properties.keys.map { (EventNaming.label(ofProperty: $0), $0) }, uniquingKeysWith: min
        )
    }

    public func event(named name: String) -> EventDefinition? { eventsByName[name] }

    /// The event a generated type (`FlowSavedSuccess`) stands for.
    public func event(typeName: String) -> EventDefinition? {
        eventNamesByTypeName[typeName].flatMap { eventsByName[$0] }
    }

    /// The catalogued property a generated label (`launchSource`) stands for.
    public func propertyName(label: String) -> String? { propertyNamesByLabel[label] }

    /// Whether `event` may carry `property`, and if not, why: `nil` when it may.
    func propertyProblem(_ property: String, on event: EventDefinition) -> String? {
        guard allowedProperties[event.name]?.contains(property) == true else {
            return "property '\(property)' is not declared for '\(event.name)'"
        }
        if catalog.properties[property]?.isEnabled == false {
            return "property '\(property)' is a disabled placeholder"
        }
        return nil
    }

    /// The enabled properties `event` may carry, for fix hints.
    func declaredProperties(of event: EventDefinition) -> [String] {
        catalog.allowedProperties(of: event).map(\.name).filter { catalog.properties[$0]?.isEnabled != false }
    }
}

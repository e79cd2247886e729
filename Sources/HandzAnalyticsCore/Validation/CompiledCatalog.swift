/// A ``Catalog`` compiled into the lookup tables the validator probes with raw input bytes:
/// property and event names hash to small integers, each (event, property) pair resolves to one
/// precompiled check, enum sets and the time zone list are byte tables.
///
/// Immutable and `Sendable`: compile once, share across threads; a reload compiles a new one.
public final class CompiledCatalog: Sendable {
    public let catalog: Catalog
    public var version: String { catalog.version }
    public var limits: CatalogLimits { catalog.limits }
    public let keyLint: PIIKeyLint

    /// Property names by id.
    let propertyNames: [String]
    let propertyTable: ByteStringTable
    /// Whether each property sits at the top level (envelope) or inside `properties`.
    let isTopLevel: [Bool]
    /// Each property's check when no event narrows it.
    let globalCheck: [Int32]
    let checks: [PropertyCheck]
    let enumTables: [ByteStringTable]
    let timeZoneTable: ByteStringTable
    let events: [CompiledEvent]
    let eventTable: ByteStringTable
    /// Top-level ids every event must carry, and the ones it may carry.
    let requiredTopLevel: [Int32]
    let allowedTopLevel: [Bool]
    let eventNameID: Int
    let optInID: Int
    /// The id `properties` resolves to in `propertyTable` (one past the last property).
    let propertiesKeyID: Int

    public var propertyCount: Int { propertyNames.count }

    public convenience init(_ catalog: Catalog) {
        self.init(compiling: catalog)
    }

    init(compiling catalog: Catalog) {
        self.catalog = catalog
        self.keyLint = PIIKeyLint(policy: catalog.privacy)
        let names = catalog.properties.keys.sorted()
        var ids: [String: Int] = [:]
        for (index, name) in names.enumerated() { ids[name] = index }
        propertyNames = names
        propertiesKeyID = names.count
        propertyTable = ByteStringTable(names.enumerated().map { ($0.element, $0.offset) } + [(EnvelopeDefinition.propertiesKey, names.count)])
        let topLevel = Set(catalog.envelope.required + catalog.envelope.optional)
        isTopLevel = names.map { topLevel.contains($0) }
        allowedTopLevel = isTopLevel
        requiredTopLevel = catalog.envelope.required.compactMap { ids[$0].map(Int32.init) }
        eventNameID = ids["event_name"] ?? -1
        optInID = ids["analytics_opt_in"] ?? -1
        timeZoneTable = ByteStringTable(catalog.timeZones.enumerated().map { ($0.element, $0.offset) })

        var builder = CheckBuilder()
        globalCheck = names.map { Int32(builder.add(catalog.properties[$0]!, eventName: nil)) }
        var compiledEvents: [CompiledEvent] = []
        for event in catalog.events {
            var rules = [Int32](repeating: -1, count: names.count)
            var required: [Int32] = []
            for rule in catalog.allowedProperties(of: event) {
                guard let id = ids[rule.name], let definition = catalog.effectiveDefinition(of: rule) else { continue }
                let narrowed = rule.allowedValues != nil || rule.minimum != nil || rule.maximum != nil
                rules[id] = narrowed ? Int32(builder.add(definition, eventName: event.name)) : globalCheck[id]
                if rule.isRequired { required.append(Int32(id)) }
            }
            compiledEvents.append(CompiledEvent(name: event.name, isEnabled: event.isEnabled, ruleCheck: rules, required: required))
        }
        events = compiledEvents
        eventTable = ByteStringTable(catalog.events.enumerated().map { ($0.element.name, $0.offset) })
        checks = builder.checks
        enumTables = builder.enumTables
    }

    func propertyID(_ p: UnsafeRawPointer, _ n: Int) -> Int { propertyTable.lookup(p, n) }

    /// The id of a property by name, or nil.
    public func propertyID(named name: String) -> Int? {
        let id = propertyTable.lookup(name)
        return id >= 0 && id < propertyNames.count ? id : nil
    }

    public func propertyName(_ id: Int) -> String { propertyNames[id] }

    /// The index of a catalogued event (into `catalog.events`), or nil.
    public func eventIndex(named name: String) -> Int? {
        let index = eventTable.lookup(name)
        return index >= 0 ? index : nil
    }
}

/// One event's compiled rules: for every property id, the check to run or -1 (not allowed).
struct CompiledEvent: Sendable {
    let name: String
    let isEnabled: Bool
    let ruleCheck: [Int32]
    let required: [Int32]
}

/// One precompiled value check.
struct PropertyCheck: Sendable {
    let name: String
    let type: PropertyType
    let format: StringFormat?
    /// Index into `enumTables`, or -1.
    let enumTable: Int
    let enumCount: Int
    let minimum: Int64
    let maximum: Int64
    let isEnabled: Bool
    /// Set when an event narrows the property (for messages).
    let eventName: String?

    /// What a valid value looks like, for messages. Never contains an input value.
    var expectation: String {
        switch type {
        case .boolean: return "a boolean"
        case .integer:
            if minimum == .min && maximum == .max { return "an integer" }
            return "an integer in \(minimum)...\(maximum)"
        case .string:
            if let format { return format.summary }
            return "one of the \(enumCount) catalogued values"
        }
    }
}

private struct CheckBuilder {
    var checks: [PropertyCheck] = []
    var enumTables: [ByteStringTable] = []

    mutating func add(_ definition: PropertyDefinition, eventName: String?) -> Int {
        var table = -1
        if let values = definition.allowedValues {
            table = enumTables.count
            enumTables.append(ByteStringTable(values.enumerated().map { ($0.element, $0.offset) }))
        }
        checks.append(PropertyCheck(
            name: definition.name, type: definition.type, format: definition.format, enumTable: table,
            enumCount: definition.allowedValues?.count ?? 0,
            minimum: definition.minimum ?? .min, maximum: definition.maximum ?? .max,
            isEnabled: definition.isEnabled, eventName: eventName
        ))
        return checks.count - 1
    }
}

import HandzAnalyticsCore

/// Where code and catalog drift apart, like `ampli status`: catalogued events no source emits,
/// and emitted events that are still placeholders (CH33 §13 "Event allowlist implemented and
/// matches catalog exactly").
public struct EmissionStatus: Sendable, Equatable {
    /// Enabled events that no linted file emits, in catalog order.
    public var neverEmitted: [String]
    /// Emissions of disabled placeholder events, in path/line order.
    public var emittedPlaceholders: [EventEmission]

    public init(catalog: Catalog, emissions: [EventEmission]) {
        let emitted = Set(emissions.map(\.event))
        neverEmitted = catalog.events.filter { $0.isEnabled && !emitted.contains($0.name) }.map(\.name)
        let placeholders = Set(catalog.events.filter { !$0.isEnabled }.map(\.name))
        emittedPlaceholders = emissions.filter { placeholders.contains($0.event) }.sorted { $0.location < $1.location }
    }

    /// Whether code and catalog agree: every enabled event emitted, no placeholder emitted.
    public var isInSync: Bool { neverEmitted.isEmpty && emittedPlaceholders.isEmpty }
}

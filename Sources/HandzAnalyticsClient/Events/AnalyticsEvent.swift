import Foundation

/// A catalogued event the app can track. The conforming types are generated from the catalog
/// (`Generated/CatalogEvents.swift`), so an event that does not exist cannot be named.
public protocol AnalyticsEvent: Sendable {
    /// The catalogued `event_name`.
    static var eventName: String { get }
    /// Writes the event's own properties (the envelope is added by the client).
    func writeProperties(to writer: inout PropertyWriter)
}

/// Writes an event's `properties` object as JSON.
public struct PropertyWriter: Sendable {
    private(set) var json = "{"
    private var first = true

    public init() {}

    private mutating func key(_ name: String) {
        if !first { json += "," }
        first = false
        json += "\"" + name + "\":"
    }

    public mutating func write(_ name: String, _ value: Int) { key(name); json += String(value) }
    public mutating func write(_ name: String, _ value: Bool) { key(name); json += value ? "true" : "false" }
    public mutating func write(_ name: String, _ value: String) { key(name); JSONStringWriter.append(value, to: &json) }
    public mutating func write(_ name: String, _ value: UUID) { write(name, value.uuidString.lowercased()) }
    public mutating func write<Value: RawRepresentable>(_ name: String, _ value: Value) where Value.RawValue == String {
        write(name, value.rawValue)
    }

    /// The finished object.
    public var object: String { json + "}" }
}

/// A reviewed identifier token (`[a-z0-9][a-z0-9_]{0,63}`), e.g. a canonical move id.
/// A literal that breaks the format stops a debug build (assertion); in release the event is
/// counted invalid and never queued.
public struct Slug: RawRepresentable, ExpressibleByStringLiteral, Hashable, Sendable {
    public let rawValue: String

    /// Nil when `rawValue` is not a slug.
    public init?(rawValue: String) {
        guard HandzFormats.slug(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        assert(HandzFormats.slug(value), "not a slug: [a-z0-9][a-z0-9_]{0,63}")
        rawValue = value
    }
}

/// A screen route identifier (`auth/welcome`, CH07 §8), same rules as `Slug`.
public struct RouteID: RawRepresentable, ExpressibleByStringLiteral, Hashable, Sendable {
    public let rawValue: String

    public init?(rawValue: String) {
        guard HandzFormats.routeID(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        assert(HandzFormats.routeID(value), "not a route id like auth/welcome")
        rawValue = value
    }
}

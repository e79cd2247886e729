import Foundation
import HandzAnalyticsCore
import HandzSynthetic

/// Builds synthetic events as editable JSON objects, for tests that break one rule at a time.
/// Every value is synthetic.
public struct EventBuilder {
    public var object: [String: Any]

    /// A valid event of `name` with every required property (optional ones included when
    /// `includeOptional`).
    public init(_ name: String, includeOptional: Bool = false, seed: UInt64 = 7) {
        let catalog = RepositoryCatalog.catalog
        let factory = EventFactory(catalog: catalog)
        var random = SeededRandom(seed: seed)
        let event = catalog.event(named: name)!
        let context = factory.randomContext(&random, timeMilliseconds: 1_772_366_400_000)
        let properties = factory.randomProperties(for: event, &random, optionalProbability: includeOptional ? 1 : 0)
        let json = factory.json(name: name, eventID: SyntheticUUID.v7(milliseconds: 1_772_366_400_000, &random), context: context, properties: properties)
        object = try! JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
    }

    public var properties: [String: Any] {
        get { object["properties"] as! [String: Any] }
        set { object["properties"] = newValue }
    }

    public subscript(key: String) -> Any? {
        get { object[key] }
        set { object[key] = newValue }
    }

    /// Sets (or with nil removes) a key inside `properties`.
    public mutating func setProperty(_ key: String, _ value: Any?) {
        var properties = self.properties
        properties[key] = value
        self.properties = properties
    }

    /// Compact JSON with keys in a stable order (sorted).
    public var json: String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }
}

extension EventValidator {
    /// Validates a builder's JSON.
    public mutating func validate(_ builder: EventBuilder) -> Verdict { validate(builder.json) }
}

/// A validator over the repository catalog.
public func makeValidator() -> EventValidator { EventValidator(catalog: RepositoryCatalog.compiled) }

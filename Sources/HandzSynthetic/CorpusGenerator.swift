import Foundation
import HandzAnalyticsCore

/// A deterministic stream of NDJSON lines: catalog-valid events with a share of them broken by
/// one ``CorpusMutation`` each, across every error code. Used by the validator benchmark, the
/// JSON Schema comparison and the robustness tests.
public struct CorpusGenerator {
    public let factory: EventFactory
    public var invalidFraction: Double
    private var random: SeededRandom
    private let enabledEvents: [EventDefinition]
    private let placeholderEvents: [EventDefinition]
    private let weightedMutations: [CorpusMutation]
    private var contexts: [EventContext] = []

    public init(catalog: Catalog, seed: UInt64, invalidFraction: Double = 0.3) {
        factory = EventFactory(catalog: catalog)
        self.invalidFraction = invalidFraction
        random = SeededRandom(seed: seed)
        enabledEvents = catalog.events.filter(\.isEnabled)
        placeholderEvents = catalog.events.filter { !$0.isEnabled }
        weightedMutations = CorpusMutation.allCases.flatMap { Array(repeating: $0, count: $0.weight) }
    }

    /// The next line and its label: `valid` or a mutation's raw value.
    public mutating func next() -> (line: [UInt8], label: String) {
        // A pool of installs/sessions, so the corpus looks like traffic, not noise.
        if contexts.count < 64 || random.chance(0.01) {
            let context = factory.randomContext(&random, timeMilliseconds: 1_772_000_000_000 + random.int(in: 0...2_000_000_000))
            if contexts.count < 64 { contexts.append(context) } else { contexts[Int(random.next() % 64)] = context }
        }
        var context = random.pick(contexts)
        context.timeMilliseconds += random.int(in: 0...86_400_000)
        let event = random.pick(enabledEvents)
        if !random.chance(invalidFraction) {
            return (Array(factory.json(name: event.name, eventID: SyntheticUUID.v7(milliseconds: UInt64(context.timeMilliseconds), &random), context: context, properties: factory.randomProperties(for: event, &random)).utf8), "valid")
        }
        let mutation = random.pick(weightedMutations)
        return (mutate(mutation, event: event, context: context), mutation.rawValue)
    }

    mutating func mutate(_ mutation: CorpusMutation, event: EventDefinition, context: EventContext) -> [UInt8] {
        var event = event
        if mutation == .typeMismatchFractionalInteger || mutation == .outOfRange, !hasRequiredInteger(event) {
            event = random.pick(enabledEvents.filter(hasRequiredInteger))
        }
        var context = context
        var properties = factory.randomProperties(for: event, &random)
        var name = event.name
        var optIn = true
        var extra: [(String, String)] = []
        let eventID = SyntheticUUID.v7(milliseconds: UInt64(context.timeMilliseconds), &random)
        let catalog = factory.catalog
        func build() -> String {
            factory.json(name: name, eventID: eventID, context: context, properties: properties, optIn: optIn, extraTopLevel: extra)
        }
        switch mutation {
        case .malformedTruncated:
            let bytes = Array(build().utf8)
            return Array(bytes[0..<Int(random.int(in: 1...Int64(bytes.count - 2)))])
        case .malformedUTF8:
            var bytes = Array(build().utf8)
            // Inside the event_name string: an invalid UTF-8 byte.
            let index = bytes.firstIndex(of: UInt8(ascii: "_"))!
            bytes.insert(random.pick([0xFF, 0xC0, 0xED]), at: index)
            return bytes
        case .notAnObject:
            return Array(random.pick(["[" + build() + "]", "\"app_open\"", "42", "null"]).utf8)
        case .duplicateKey:
            extra = [("platform", "\"iOS\"")]
        case .tooLarge:
            extra = [("padding", JSONText.quoted(String(repeating: "a", count: catalog.limits.maxEventBytes)))]
        case .unknownEvent:
            name = random.pick(["app_opened_v2", "debug_log", "flow_exported_pdf", "test_event"])
        case .eventDisabled:
            let placeholder = random.pick(placeholderEvents)
            name = placeholder.name
            properties = factory.randomProperties(for: placeholder, &random)
        case .missingProperty:
            let required = catalog.allowedProperties(of: event).filter(\.isRequired).map(\.name)
            if !required.isEmpty && random.chance(0.5) {
                let drop = random.pick(required)
                properties.removeAll { $0.0 == drop }
            } else {
                return Array(removeTopLevel(random.pick(["build_number", "install_id", "session_id", "network_state", "timezone"]), from: build()).utf8)
            }
        case .unknownProperty:
            properties.append((random.pick(["debug_flag", "experiment_bucket", "retry_count"]), .boolean(true)))
        case .typeMismatch:
            if let index = properties.firstIndex(where: { if case .integer = $0.1 { true } else { false } }), random.chance(0.5) {
                properties[index].1 = .string("12")
            } else {
                return Array(build().replacingOccurrences(of: "\"analytics_opt_in\":true", with: "\"analytics_opt_in\":1").utf8)
            }
        case .typeMismatchFractionalInteger:
            // An integer written as `N.0`: JSON Schema counts it as an integer, this validator does not.
            let index = properties.firstIndex { if case .integer = $0.1 { true } else { false } }!
            guard case .integer(let value) = properties[index].1 else { break }
            let key = properties[index].0
            properties.remove(at: index)
            let marker = "\"properties\":{"
            let text = build()
            let separator = text.hasSuffix("{}}") ? "" : ","
            return Array(text.replacingOccurrences(of: marker, with: marker + "\"\(key)\":\(value).0" + separator).utf8)
        case .invalidUUID:
            context.sessionID = random.pick(["not-a-uuid", "00000000-0000-0000-0000-000000000000", String(context.sessionID.dropLast()), context.sessionID.replacingOccurrences(of: "-", with: "")])
        case .invalidEnum:
            context.userState = random.pick(["platinum", "Guest", "admin", ""])
        case .invalidTimestamp:
            let bad = random.pick(["2026-02-30T10:00:00Z", "2026-03-01 10:00:00", "2026-03-01T10:00:00+02:00", "1999-12-31T23:59:59Z", "2026-03-01T24:00:00Z", "yesterday"])
            return Array(replaceTopLevelString("event_time_utc", with: bad, in: build()).utf8)
        case .invalidFormat:
            switch random.int(in: 0...2) {
            case 0: context.locale = "english"
            case 1: context.appVersion = "v1.4"
            default: context.deviceModel = "Pixel 8"
            }
        case .invalidFormatTrailingNewline:
            // A valid value plus an escaped newline: "en_US\n".
            return Array(replaceTopLevelString("locale", with: context.locale + "\\n", in: build()).utf8)
        case .outOfRange:
            if let index = properties.firstIndex(where: { if case .integer = $0.1 { true } else { false } }) {
                let key = properties[index].0
                let definition = catalog.effectiveDefinition(of: catalog.allowedProperties(of: event).first { $0.name == key }!)!
                properties[index].1 = .integer(random.chance(0.5) ? (definition.maximum ?? 0) + 1 : (definition.minimum ?? 0) - 1)
            }
        case .piiKey:
            properties.append((random.pick(["user_email", "phone_number", "opponent_name", "move_notes", "street_address"]), .boolean(true)))
        case .piiValue:
            properties.removeAll { $0.0 == "screen_name" }
            properties.append(("screen_name", .string(random.pick(["profile/5551234567", "home/4111111111111111", "settings/15551234567"]))))
        case .optedOut:
            optIn = false
        }
        return Array(build().utf8)
    }

    func hasRequiredInteger(_ event: EventDefinition) -> Bool {
        let catalog = factory.catalog
        return event.properties.contains { $0.isRequired && catalog.properties[$0.name]?.type == .integer }
    }

    func removeTopLevel(_ key: String, from json: String) -> String {
        guard let range = json.range(of: "\"\(key)\":") else { return json }
        let afterKey = json[range.upperBound...]
        let valueEnd = afterKey.firstIndex(of: ",")!
        return String(json[..<range.lowerBound]) + String(json[json.index(after: valueEnd)...])
    }

    func replaceTopLevelString(_ key: String, with value: String, in json: String) -> String {
        guard let range = json.range(of: "\"\(key)\":\"") else { return json }
        let end = json[range.upperBound...].firstIndex(of: "\"")!
        return String(json[..<range.upperBound]) + value + String(json[end...])
    }
}

import HandzAnalyticsCore

/// Builds synthetic, catalog-valid events: every value is generated from the property's enum,
/// format or range, so a valid example exists for every catalogued event by construction.
/// All data is synthetic; nothing here resembles a real person.
public struct EventFactory: Sendable {
    public let catalog: Catalog

    public init(catalog: Catalog) { self.catalog = catalog }

    static let slugs = ["armbar_from_guard", "triangle_choke", "kimura", "hip_bump_sweep", "scissor_sweep", "demo_closed_guard", "knee_slice_pass", "rear_naked_choke"]
    static let routes = ["auth/welcome", "home/demo", "library/flows", "flow/detail", "flow/builder", "practice/setup", "settings/privacy", "onboarding/goals_router", "inbox/list", "paywall/practice"]
    static let locales = ["en_US", "en_GB", "pt_BR", "es_ES", "ja_JP", "fr_FR", "de_DE"]
    static let timeZones = ["America/New_York", "America/Los_Angeles", "Europe/London", "America/Sao_Paulo", "Asia/Tokyo", "UTC"]
    static let osVersions = ["iOS 18.6", "iOS 17.5.1", "iOS 18.1", "iPadOS 18.6"]
    static let deviceModels = ["iPhone15,2", "iPhone16,1", "iPhone14,5", "iPhone17,3", "iPad13,4"]
    static let appVersions = ["1.4.2", "1.5.0", "1.3.9"]

    /// A random envelope context around `timeMilliseconds`.
    public func randomContext(_ random: inout SeededRandom, timeMilliseconds: Int64) -> EventContext {
        let state = random.pick(["guest", "free", "trial", "pro"])
        return EventContext(
            installID: SyntheticUUID.v4(&random), sessionID: SyntheticUUID.v4(&random),
            userID: state == "guest" ? nil : SyntheticUUID.v4(&random), userState: state, timeMilliseconds: timeMilliseconds,
            appVersion: random.pick(Self.appVersions), buildNumber: String(random.int(in: 300...999)),
            osVersion: random.pick(Self.osVersions), deviceModel: random.pick(Self.deviceModels),
            locale: random.pick(Self.locales), timeZone: random.pick(Self.timeZones),
            networkState: random.pick(["online", "online", "online", "offline", "flaky"])
        )
    }

    /// Values for an event's properties: every required one, each optional one with
    /// probability `optionalProbability`.
    public func randomProperties(for event: EventDefinition, _ random: inout SeededRandom, optionalProbability: Double = 0.5) -> [(String, PropertyValue)] {
        var values: [(String, PropertyValue)] = []
        let declared = Set(event.properties.map(\.name))
        for rule in catalog.allowedProperties(of: event) {
            guard let definition = catalog.effectiveDefinition(of: rule), definition.isEnabled else { continue }
            if !declared.contains(rule.name) && Self.describingCommonOptional.contains(rule.name) { continue }
            if !rule.isRequired && !random.chance(optionalProbability) { continue }
            values.append((rule.name, randomValue(definition, &random)))
        }
        return values
    }

    /// Common optional properties (CH33 §3.2) that describe what happened — a timing, a failure, a
    /// gate — rather than where. Any event may carry them, but a random one on an event that does
    /// not declare it would be a made-up fact (a gate on a save attempt that hit none), so synthetic
    /// events carry them only where the event declares them, with the values its journey gives.
    static let describingCommonOptional: Set<String> = ["duration_ms", "error_code", "gate_name"]

    /// A random valid value for a property definition.
    public func randomValue(_ definition: PropertyDefinition, _ random: inout SeededRandom) -> PropertyValue {
        switch definition.type {
        case .boolean:
            return .boolean(random.chance(0.5))
        case .integer:
            let low = definition.minimum ?? 0
            let high = definition.maximum ?? 1_000_000
            if random.chance(0.8) { return .integer(random.int(in: low...min(high, low + 50))) }
            return .integer(random.int(in: low...high))
        case .string:
            if let values = definition.allowedValues { return .string(random.pick(values)) }
            return .string(randomString(definition.format, &random))
        }
    }

    func randomString(_ format: StringFormat?, _ random: inout SeededRandom) -> String {
        switch format {
        case .uuid?: SyntheticUUID.v4(&random)
        case .timestampUTC?: TimestampFormat.format(seconds: 1_772_000_000 + random.int(in: 0...10_000_000))
        case .slug?: random.pick(Self.slugs)
        case .routeID?: random.pick(Self.routes)
        case .appVersion?: random.pick(Self.appVersions)
        case .buildNumber?: String(random.int(in: 1...9999))
        case .locale?: random.pick(Self.locales)
        case .ianaTimeZone?: random.pick(Self.timeZones.filter(catalog.timeZones.contains))
        case .osVersion?: random.pick(Self.osVersions)
        case .deviceModel?: random.pick(Self.deviceModels)
        case nil: random.pick(catalog.events.filter(\.isEnabled)).name
        }
    }

    /// The wire JSON of one event (CH33 §3.2 envelope at the top, `properties` inside).
    public func json(name: String, eventID: String, context: EventContext, properties: [(String, PropertyValue)],
                     optIn: Bool = true, extraTopLevel: [(String, String)] = []) -> String {
        var json = JSONText()
        json.beginObject()
        json.field("event_id", eventID)
        json.field("event_name", name)
        let seconds = context.timeMilliseconds >= 0 ? context.timeMilliseconds / 1000 : (context.timeMilliseconds - 999) / 1000
        let millis = context.timeMilliseconds - seconds * 1000
        json.field("event_time_utc", TimestampFormat.format(seconds: seconds, nanoseconds: Int32(millis * 1_000_000)))
        // The envelope's text fields are the stored event's text columns (EventColumn), by name.
        for column in EventColumn.eventText {
            if let value = context.envelopeText(column) { json.field(column.name, value) }
        }
        json.field("analytics_opt_in", optIn)
        for (key, rawJSON) in extraTopLevel { json.key(key); json.raw(rawJSON) }
        json.key("properties")
        json.beginObject()
        for (key, value) in properties {
            json.key(key)
            value.write(to: &json)
        }
        json.endObject()
        json.endObject()
        return json.text
    }

    /// One valid example of `event`, with every optional property included.
    public func validExample(of event: EventDefinition, seed: UInt64 = 1) -> String {
        var random = SeededRandom(seed: seed)
        let context = randomContext(&random, timeMilliseconds: 1_772_366_400_000)
        let properties = randomProperties(for: event, &random, optionalProbability: 1)
        return json(name: event.name, eventID: SyntheticUUID.v7(milliseconds: 1_772_366_400_000, &random), context: context, properties: properties)
    }
}

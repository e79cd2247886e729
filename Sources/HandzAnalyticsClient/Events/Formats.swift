import HandzAnalyticsCore

/// The core's format matchers, for the wrapper types.
enum HandzFormats {
    static func slug(_ value: String) -> Bool { StringFormat.slug.matches(value) }
    static func routeID(_ value: String) -> Bool { StringFormat.routeID.matches(value) }
}

/// JSON string escaping, from the core.
enum JSONStringWriter {
    static func append(_ value: String, to out: inout String) { JSONString.append(value, to: &out) }
}

import HandzAnalyticsCore

/// Builds compact JSON text, for synthetic events and command output. Strings are escaped per
/// RFC 8259; keys keep the order they are written in.
public struct JSONText: Sendable {
    public private(set) var text: String = ""
    private var needsComma: [Bool] = []

    public init() {}

    public mutating func beginObject() { separate(); text += "{"; needsComma.append(false) }
    public mutating func endObject() { text += "}"; needsComma.removeLast() }
    public mutating func beginArray() { separate(); text += "["; needsComma.append(false) }
    public mutating func endArray() { text += "]"; needsComma.removeLast() }

    public mutating func key(_ key: String) {
        separate()
        Self.appendQuoted(key, to: &text)
        text += ":"
        if !needsComma.isEmpty { needsComma[needsComma.count - 1] = false }
    }

    public mutating func string(_ value: String) { separate(); Self.appendQuoted(value, to: &text) }
    public mutating func integer<I: BinaryInteger>(_ value: I) { separate(); text += String(value) }
    public mutating func double(_ value: Double) { separate(); text += value.isFinite ? String(value) : "null" }
    public mutating func bool(_ value: Bool) { separate(); text += value ? "true" : "false" }
    public mutating func null() { separate(); text += "null" }
    /// Appends already-encoded JSON.
    public mutating func raw(_ json: String) { separate(); text += json }

    public mutating func field(_ name: String, _ value: String) { key(name); string(value) }
    public mutating func field<I: BinaryInteger>(_ name: String, _ value: I) { key(name); integer(value) }
    public mutating func field(_ name: String, _ value: Bool) { key(name); bool(value) }

    private mutating func separate() {
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] { text += "," }
        needsComma[needsComma.count - 1] = true
    }

    /// `value` as a quoted JSON string.
    public static func quoted(_ value: String) -> String { JSONString.quoted(value) }

    public static func appendQuoted(_ value: String, to out: inout String) {
        JSONString.append(value, to: &out)
    }
}

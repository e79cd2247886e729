import HandzAnalyticsCore

/// A JSON document with ordered object keys, for exports that people read and diff.
public indirect enum JSONValue: Sendable, Equatable {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case null

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.serialized() == rhs.serialized()
    }

    /// The value's JSON text; `indent` > 0 pretty-prints.
    public func serialized(indent: Int = 2) -> String {
        var out = ""
        write(to: &out, indent: indent, level: 0)
        return out
    }

    private func write(to out: inout String, indent: Int, level: Int) {
        let newline = indent > 0 ? "\n" : ""
        let pad = String(repeating: " ", count: indent * (level + 1))
        let closePad = String(repeating: " ", count: indent * level)
        switch self {
        case .object(let pairs):
            if pairs.isEmpty { out += "{}"; return }
            out += "{" + newline
            for (index, (key, value)) in pairs.enumerated() {
                out += pad
                Self.quote(key, into: &out)
                out += indent > 0 ? ": " : ":"
                value.write(to: &out, indent: indent, level: level + 1)
                out += (index < pairs.count - 1 ? "," : "") + newline
            }
            out += closePad + "}"
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            // Arrays of scalars stay on one line.
            if items.allSatisfy({ if case .object = $0 { false } else if case .array = $0 { false } else { true } }) {
                out += "["
                for (index, item) in items.enumerated() {
                    item.write(to: &out, indent: 0, level: 0)
                    if index < items.count - 1 { out += indent > 0 ? ", " : "," }
                }
                out += "]"
                return
            }
            out += "[" + newline
            for (index, item) in items.enumerated() {
                out += pad
                item.write(to: &out, indent: indent, level: level + 1)
                out += (index < items.count - 1 ? "," : "") + newline
            }
            out += closePad + "]"
        case .string(let value): Self.quote(value, into: &out)
        case .integer(let value): out += String(value)
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        }
    }

    static func quote(_ value: String, into out: inout String) {
        JSONString.append(value, to: &out)
    }
}

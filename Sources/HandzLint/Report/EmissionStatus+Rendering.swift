import HandzCatalog

extension EmissionStatus {
    /// `lint status` as text: both lists with counts, placeholders with their place in the code.
    public var text: String {
        var lines = ["catalogued events never emitted: \(neverEmitted.count)"]
        lines += neverEmitted.map { "  \($0)" }
        lines.append("placeholder events emitted: \(emittedPlaceholders.count)")
        lines += emittedPlaceholders.map { "  \($0.location): \($0.event)" }
        return lines.joined(separator: "\n")
    }

    /// `lint status --format json`.
    public var json: JSONValue {
        .object([
            ("in_sync", .bool(isInSync)),
            ("never_emitted", .array(neverEmitted.map(JSONValue.string))),
            ("emitted_placeholders", .array(emittedPlaceholders.map { emission in
                .object([
                    ("event", .string(emission.event)),
                    ("file", .string(emission.location.path)),
                    ("line", .integer(Int64(emission.location.line))),
                    ("column", .integer(Int64(emission.location.column))),
                ])
            })),
        ])
    }
}

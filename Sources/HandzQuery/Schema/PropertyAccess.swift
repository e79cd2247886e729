import HandzAnalyticsCore

/// Turns catalog property names into SQL expressions on one row of `events` (aliased `e`):
/// envelope fields are columns, event properties are read from the `properties` JSON. Names come
/// only from the catalog and are checked to be plain identifiers before they reach SQL text.
struct PropertyAccess {
    let catalog: Catalog
    let dialect: SQLDialect
    let alias: String

    init(catalog: Catalog, dialect: SQLDialect, alias: String = "e") {
        self.catalog = catalog
        self.dialect = dialect
        self.alias = alias
    }

    /// A catalog identifier: `[a-z][a-z0-9_]*`.
    static func checkIdentifier(_ name: String) throws(QueryError) {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
              bytes.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_") })
        else { throw .invalidIdentifier(name) }
    }

    func column(_ name: String) -> String { "\(alias).\(name)" }

    /// The property as text (NULL when absent).
    func text(_ name: String) throws(QueryError) -> String {
        try Self.checkIdentifier(name)
        if EventsTable.envelopeColumns.contains(name) { return column(name) }
        let type = catalog.properties[name]?.type ?? .string
        return dialect.propertyText(column("properties"), name, type: type)
    }

    /// An integer property (NULL when absent).
    func integer(_ name: String) throws(QueryError) -> String {
        try Self.checkIdentifier(name)
        return dialect.propertyInteger(column("properties"), name)
    }

    /// `event_name IN (…) AND every filter holds`.
    func matches(events: [String], filters: [PropertyFilter]) throws(QueryError) -> String {
        for name in events { try Self.checkIdentifier(name) }
        // No events: the filters alone (a funnel success on any event).
        var parts = events.isEmpty ? [] : ["\(column("event_name")) IN \(try dialect.literalList(events))"]
        for filter in filters {
            parts.append("\(try text(filter.property)) IN \(try dialect.literalList(filter.values))")
        }
        return "(" + (parts.isEmpty ? "1 = 1" : parts.joined(separator: " AND ")) + ")"
    }
}

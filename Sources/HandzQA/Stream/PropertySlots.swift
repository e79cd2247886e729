import HandzAnalyticsCore

/// The properties the rules read, each given a column ("slot") in ``QAEventLog``. Only these are
/// kept from an event; every other value is skipped while reading and never stored.
public struct PropertySlots: Sendable {
    public enum Location: Sendable { case envelope, properties }

    struct Slot: Sendable {
        var name: String
        var location: Location
        var type: PropertyType
    }

    private(set) var slots: [Slot] = []
    private(set) var index: [String: Int] = [:]
    /// Slot names as bytes; a key's id is its slot.
    private(set) var keys = ByteInterner(capacity: 64)

    var count: Int { slots.count }

    /// The slot of `name`, adding it (typed from the catalog) when new; nil for a property the
    /// catalog does not define.
    mutating func slot(_ name: String, catalog: Catalog) -> Int? {
        if let existing = index[name] { return existing }
        guard let definition = catalog.properties[name] else { return nil }
        let topLevel = Set(catalog.envelope.required + catalog.envelope.optional)
        slots.append(Slot(name: name, location: topLevel.contains(name) ? .envelope : .properties, type: definition.type))
        index[name] = slots.count - 1
        _ = keys.intern(name)
        return slots.count - 1
    }

    func slot(named name: String) -> Int? { index[name] }

    @inline(__always) func slot(key: UnsafeRawBufferPointer) -> Int? { keys.lookup(key).map(Int.init) }
}

/// The stored reading of one property value: strings as interned ids, booleans 0/1, integers
/// as themselves; `missing` when the event does not carry it (or carries another JSON type).
enum SlotValue {
    static let missing = Int64.min
}

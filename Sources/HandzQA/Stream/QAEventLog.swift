import HandzAnalyticsCore

/// A captured event stream, column by column, holding only what the rules read: name, time,
/// event id, install, session and the properties of ``PropertySlots``. Values are kept as ids
/// and numbers for comparison; they are never printed (CH33 §1 privacy, STYLE habit "privacy by
/// default").
public struct QAEventLog: Sendable {
    let slots: PropertySlots
    var names: ByteInterner
    var identifiers = ByteInterner(capacity: 4096)
    var values: ByteInterner

    var name: [Int32] = []
    var time: [Int64] = []
    var idHigh: [UInt64] = []
    var idLow: [UInt64] = []
    var install: [Int32] = []
    var session: [Int32] = []
    /// `count × slots.count` values, event-major.
    var slotValues: [Int64] = []
    /// Events the store quarantined (read from `rejected_events`): where and why, never what.
    public internal(set) var quarantined: [QAQuarantinedEvent] = []

    public var count: Int { name.count }

    /// Names with ids below this are catalogued; others are printed as `(uncatalogued)`, since
    /// an unknown name is client text and may hold anything.
    let catalogedNames: Int32

    init(program: QAProgram) {
        slots = program.slots
        names = program.names
        values = program.values
        catalogedNames = Int32(program.catalog.events.count)
    }

    /// The properties (catalog names) the rules read from an event's properties object; a
    /// reader may give only these (the column store's, `HandzColumnStore.StoredEventRows`).
    public var propertiesRead: [String] { slots.slots.filter { $0.location == .properties }.map(\.name) }

    /// An event's name for reports: catalogued names only.
    func displayName(_ event: Int32) -> String {
        let id = name[Int(event)]
        return id < catalogedNames ? names.text(id) : "(uncatalogued)"
    }

    public mutating func reserve(_ capacity: Int) {
        name.reserveCapacity(capacity); time.reserveCapacity(capacity); idHigh.reserveCapacity(capacity)
        idLow.reserveCapacity(capacity); install.reserveCapacity(capacity); session.reserveCapacity(capacity)
        slotValues.reserveCapacity(capacity * slots.count)
    }

    /// One event as stored (`events` row): 16-byte id, name, time, ids, the `user_state` column
    /// and the properties object's JSON. Stored events were accepted, so `analytics_opt_in` was true.
    public mutating func appendStored(eventID: (UInt64, UInt64), name eventName: String, timeMs: Int64, installID: String, sessionID: String,
                                      userState: String, propertiesJSON: UnsafeRawBufferPointer) throws(QAInputError) {
        let start = slotValues.count
        slotValues.append(contentsOf: repeatElement(SlotValue.missing, count: slots.count))
        for (index, slot) in slots.slots.enumerated() where slot.location == .envelope {
            switch slot.name {
            case "user_state": slotValues[start + index] = Int64(values.intern(userState))
            case "analytics_opt_in": slotValues[start + index] = 1
            default: break
            }
        }
        var reader = JSONObjectReader(propertiesJSON)
        do {
            var first = try reader.beginObject()
            while let key = try reader.nextKey(&first) {
                if let slot = slotIndex(key), slots.slots[slot].location == .properties {
                    store(slot, try reader.value(), base: start)
                } else {
                    try reader.skipValue()
                }
            }
            try reader.finish()
        } catch {
            slotValues.removeLast(slots.count)
            throw QAInputError.malformedJSON
        }
        name.append(names.intern(eventName))
        time.append(timeMs)
        idHigh.append(eventID.0)
        idLow.append(eventID.1)
        install.append(identifiers.intern(installID))
        session.append(identifiers.intern(sessionID))
    }

    /// A quarantined event (`rejected_events`): its name when catalogued, receive time, codes.
    public mutating func appendQuarantined(_ event: QAQuarantinedEvent) { quarantined.append(event) }

    /// Event name, time and id of event `index`, for reports.
    func reference(_ index: Int32) -> QAEventRef {
        let i = Int(index)
        return QAEventRef(name: displayName(index), timeMs: time[i], eventID: UUIDv7.format(high: idHigh[i], low: idLow[i]))
    }

    @inline(__always) func value(_ event: Int32, _ slot: Int) -> Int64 {
        slotValues[Int(event) * slots.count + slot]
    }

    func installText(_ event: Int32) -> String { identifiers.text(install[Int(event)]) }
    func sessionText(_ event: Int32) -> String { identifiers.text(session[Int(event)]) }

    @inline(__always) func slotIndex(_ key: UnsafeRawBufferPointer) -> Int? { slots.slot(key: key) }
}

/// An event the store quarantined: no identifiers are kept there (CH33 §8), so none is reported.
public struct QAQuarantinedEvent: Sendable, Equatable {
    /// Set only when the name was catalogued (the store's rule).
    public var eventName: String?
    public var receivedTimeMs: Int64
    public var codes: [String]

    public init(eventName: String?, receivedTimeMs: Int64, codes: [String]) {
        self.eventName = eventName
        self.receivedTimeMs = receivedTimeMs
        self.codes = codes
    }
}

/// Why a captured line could not be read (a field name, never a value).
public enum QAInputError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformedJSON
    case missingField(String)
    case invalidField(String)

    public var description: String {
        switch self {
        case .malformedJSON: "not a JSON object"
        case .missingField(let field): "missing \(field)"
        case .invalidField(let field): "invalid \(field)"
        }
    }
}

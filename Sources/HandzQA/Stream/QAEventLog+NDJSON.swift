import HandzAnalyticsCore

/// Reading captured NDJSON (the wire shape of CH33 §3.2, as `simulate` writes and `send`/`serve`
/// receive it): one event per line, read byte by byte.
extension QAEventLog {
    /// Top-level keys the log reads besides the envelope slots.
    enum Field: Int32, CaseIterable {
        case eventID, eventName, eventTime, installID, sessionID, properties

        var key: String {
            switch self {
            case .eventID: "event_id"
            case .eventName: "event_name"
            case .eventTime: "event_time_utc"
            case .installID: "install_id"
            case .sessionID: "session_id"
            case .properties: "properties"
            }
        }

        static let keys: ByteInterner = {
            var keys = ByteInterner(capacity: 16)
            for field in allCases { _ = keys.intern(field.key) }
            return keys
        }()
    }

    /// Appends one line's event. A line that is not an event object with the identifying fields
    /// throws (the caller reports the line number and the reason, never the content).
    public mutating func append(line: UnsafeRawBufferPointer) throws(QAInputError) {
        let start = slotValues.count
        slotValues.append(contentsOf: repeatElement(SlotValue.missing, count: slots.count))
        do {
            try readLine(line, base: start)
        } catch {
            slotValues.removeLast(slots.count)
            throw error
        }
    }

    private mutating func readLine(_ line: UnsafeRawBufferPointer, base: Int) throws(QAInputError) {
        var reader = JSONObjectReader(line)
        var eventName: Int32?, eventTime: Int64?, eventID: (UInt64, UInt64)?, installID: Int32?, sessionID: Int32?
        do {
            var first = try reader.beginObject()
            while let key = try reader.nextKey(&first) {
                guard let field = Field.keys.lookup(key).flatMap(Field.init(rawValue:)) else {
                    if let slot = slots.slot(key: key), slots.slots[slot].location == .envelope {
                        store(slot, try reader.value(), base: base)
                    } else {
                        try reader.skipValue()
                    }
                    continue
                }
                if field == .properties {
                    guard reader.atObject else { throw QAInputError.invalidField("properties") }
                    var inner = try reader.beginObject()
                    while let property = try reader.nextKey(&inner) {
                        if let slot = slots.slot(key: property), slots.slots[slot].location == .properties {
                            store(slot, try reader.value(), base: base)
                        } else {
                            try reader.skipValue()
                        }
                    }
                    continue
                }
                guard case .string(let text) = try reader.value() else { throw QAInputError.invalidField(field.key) }
                switch field {
                case .eventName: eventName = names.intern(text)
                case .eventTime:
                    guard let parsed = TimestampFormat.parse(text.baseAddress!, text.count) else { throw QAInputError.invalidField(field.key) }
                    eventTime = parsed.seconds * 1000 + Int64(parsed.nanoseconds / 1_000_000)
                case .eventID:
                    guard text.count == 36, UUIDFormat.matches(text.baseAddress!, 36) else { throw QAInputError.invalidField(field.key) }
                    eventID = UUIDFormat.bytes(text.baseAddress!)
                // Reports print these ids, so only UUIDs are kept: a capture is not validated, and
                // a value in their place (an email, a name) must never reach a report.
                case .installID, .sessionID:
                    guard text.count == 36, UUIDFormat.matches(text.baseAddress!, 36) else { throw QAInputError.invalidField(field.key) }
                    if field == .installID { installID = identifiers.intern(text) } else { sessionID = identifiers.intern(text) }
                case .properties: break
                }
            }
            try reader.finish()
        } catch let error as QAInputError {
            throw error
        } catch {
            throw QAInputError.malformedJSON
        }
        guard let eventID else { throw .missingField("event_id") }
        guard let eventName else { throw .missingField("event_name") }
        guard let eventTime else { throw .missingField("event_time_utc") }
        guard let installID else { throw .missingField("install_id") }
        guard let sessionID else { throw .missingField("session_id") }
        name.append(eventName)
        time.append(eventTime)
        idHigh.append(eventID.0)
        idLow.append(eventID.1)
        install.append(installID)
        session.append(sessionID)
    }

    /// Stores a slotted value read from JSON (another JSON type than the catalog's stays missing).
    mutating func store(_ slot: Int, _ value: JSONObjectReader.Value, base: Int) {
        let stored: Int64
        switch (value, slots.slots[slot].type) {
        case (.string(let bytes), .string): stored = Int64(values.intern(bytes))
        case (.integer(let number), .integer): stored = number
        case (.bool(let flag), .boolean): stored = flag ? 1 : 0
        default: return
        }
        slotValues[base + slot] = stored
    }
}

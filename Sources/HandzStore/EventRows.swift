import HandzAnalyticsCore

/// Accepted events ready to store, packed for a lean write path: every text field of every row
/// lives in one byte buffer, so a batch of a thousand events is a handful of allocations and the
/// writer binds straight from it (no `String` per field).
public struct EventRows: Sendable {
    /// A packed column: one of ``fields``.
    public typealias Field = EventColumn

    /// The columns packed per row, in table order: the ones the event supplies as text
    /// (`EventColumn.eventText`). The id and time are held apart; the request's columns are the
    /// batch's (``IngestBatch``).
    public static let fields = EventColumn.eventText

    /// Each column's place among ``fields`` (-1 for a column not packed), by `EventColumn.rawValue`.
    static let slots: [Int] = EventColumn.allCases.map { column in fields.firstIndex(of: column) ?? -1 }

    static func slot(_ field: Field) -> Int {
        let slot = slots[field.rawValue]
        precondition(slot >= 0, "not a packed column")
        return slot
    }

    static let fieldCount = fields.count

    /// Text bytes of all fields of all rows.
    public private(set) var bytes: [UInt8] = []
    /// Per row and field: (offset, length) into `bytes`; length -1 is NULL.
    var spans: [Int32] = []
    /// 16 bytes per row.
    public private(set) var eventIDs: [UInt8] = []
    public private(set) var eventTimes: [Int64] = []

    public init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity * 400)
        spans.reserveCapacity(capacity * Self.fieldCount * 2)
        eventIDs.reserveCapacity(capacity * 16)
        eventTimes.reserveCapacity(capacity)
    }

    public var count: Int { eventTimes.count }

    /// Starts a row: its 16-byte event id and time. Follow with `appendField` once per field, in
    /// ``fields`` order.
    public mutating func beginRow(eventID: (UInt64, UInt64), eventTimeMs: Int64) {
        withUnsafeBytes(of: eventID.0.bigEndian) { eventIDs.append(contentsOf: $0) }
        withUnsafeBytes(of: eventID.1.bigEndian) { eventIDs.append(contentsOf: $0) }
        eventTimes.append(eventTimeMs)
    }

    /// Appends the next field of the current row (nil for NULL).
    public mutating func appendField(_ value: UnsafeRawBufferPointer?) {
        if let value {
            spans.append(Int32(bytes.count))
            spans.append(Int32(value.count))
            bytes.append(contentsOf: value)
        } else {
            spans.append(0)
            spans.append(-1)
        }
    }

    /// Appends the next field of the current row with ASCII letters lower-cased: the canonical
    /// form of a UUID (RFC 9562 §4 output is lower-case). The store keeps every UUID so, whatever
    /// case the client sent, so deletion and joins match by one exact form (HandzStore docs, "Stored events").
    public mutating func appendLowercasedField(_ value: UnsafeRawBufferPointer) {
        appendField(value)
        lowercaseInLastField(0..<value.count)
    }

    /// Lower-cases ASCII letters in `range` of the current row's last field (a UUID value inside
    /// `properties`, by its offset from the field's start).
    public mutating func lowercaseInLastField(_ range: Range<Int>) {
        let offset = Int(spans[spans.count - 2])
        for index in (offset + range.lowerBound)..<(offset + range.upperBound) where bytes[index] >= 0x41 && bytes[index] <= 0x5A {
            bytes[index] |= 0x20
        }
    }

    /// Appends a whole row from strings (for tests and tools).
    public mutating func append(eventID: (UInt64, UInt64), eventTimeMs: Int64, fields: [Field: String]) {
        beginRow(eventID: eventID, eventTimeMs: eventTimeMs)
        for field in Self.fields {
            if let value = fields[field] {
                var value = value
                value.withUTF8 { appendField(UnsafeRawBufferPointer($0)) }
            } else {
                appendField(nil)
            }
        }
    }

    /// Appends every row of `other`.
    public mutating func append(contentsOf other: EventRows) {
        let shift = Int32(bytes.count)
        bytes.append(contentsOf: other.bytes)
        spans.reserveCapacity(spans.count + other.spans.count)
        for index in stride(from: 0, to: other.spans.count, by: 2) {
            let length = other.spans[index + 1]
            spans.append(length >= 0 ? other.spans[index] + shift : 0)
            spans.append(length)
        }
        eventIDs.append(contentsOf: other.eventIDs)
        eventTimes.append(contentsOf: other.eventTimes)
    }

    /// Appends row `row` of `other` (the new rows of a batch with duplicates, for the segment log).
    public mutating func appendRow(_ row: Int, of other: EventRows) {
        let id = other.eventID(row).withUnsafeBytes { UUIDWords(orderingBytes: $0) }
        beginRow(eventID: (id.high, id.low), eventTimeMs: other.eventTimes[row])
        for field in Self.fields { other.withField(row, field) { appendField($0) } }
    }

    /// Where one field of one row lies in `bytes`: (offset, length), length -1 for NULL.
    func span(_ row: Int, _ field: Field) -> (offset: Int, length: Int) {
        let base = (row * Self.fieldCount + Self.slot(field)) * 2
        return (Int(spans[base]), Int(spans[base + 1]))
    }

    /// The bytes of one field of one row, or nil for NULL.
    public func withField<R>(_ row: Int, _ field: Field, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        let base = (row * Self.fieldCount + Self.slot(field)) * 2
        let length = Int(spans[base + 1])
        guard length >= 0 else { return try body(nil) }
        let offset = Int(spans[base])
        return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + length)])) }
    }

    /// A field as a `String` (for tests and tools, not the write path).
    public func string(_ row: Int, _ field: Field) -> String? {
        withField(row, field) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// The 16-byte event id of a row.
    public func eventID(_ row: Int) -> ArraySlice<UInt8> { eventIDs[(row * 16)..<(row * 16 + 16)] }
}

/// One rejected event for the quarantine: where and why, never what (no value, no payload).
public struct RejectedEventRecord: Sendable, Equatable {
    /// The event name, only when it is a catalogued name.
    public var eventName: String?
    /// (code, JSON-pointer path) pairs; paths are already redacted by the validator.
    public var errors: [(code: String, path: String)]
    public var byteSize: Int

    public init(eventName: String?, errors: [(code: String, path: String)], byteSize: Int) {
        self.eventName = eventName
        self.errors = errors
        self.byteSize = byteSize
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.eventName == rhs.eventName && lhs.byteSize == rhs.byteSize
            && lhs.errors.map(\.code) == rhs.errors.map(\.code) && lhs.errors.map(\.path) == rhs.errors.map(\.path)
    }
}

/// What one request asks the store to write, atomically.
public struct IngestBatch: Sendable {
    public var receivedTimeMs: Int64
    public var keyID: String
    public var catalogVersion: String
    public var sentAtMs: Int64?
    public var bodyBytes: Int
    public var rows: EventRows
    public var rejected: [RejectedEventRecord]

    public init(receivedTimeMs: Int64, keyID: String, catalogVersion: String, sentAtMs: Int64?, bodyBytes: Int,
                rows: EventRows, rejected: [RejectedEventRecord]) {
        self.receivedTimeMs = receivedTimeMs
        self.keyID = keyID
        self.catalogVersion = catalogVersion
        self.sentAtMs = sentAtMs
        self.bodyBytes = bodyBytes
        self.rows = rows
        self.rejected = rejected
    }
}

extension IngestBatch {
    /// Row `row`'s value of a text-held column (`EventColumn.Kind` `.eventID`, `.text`, `.json`)
    /// as the stores keep it: the event's own fields from ``rows``, the request's from the batch,
    /// `event_id` as canonical lower-case UUID text.
    public func text(_ column: EventColumn, row: Int) -> String? {
        switch column {
        case .eventID: UUIDText.canonical(Array(rows.eventID(row)))
        case .keyID: keyID
        case .catalogVersion: catalogVersion
        default: rows.string(row, column)
        }
    }

    /// Row `row`'s value of an integer column: its event time, or the batch's receive time.
    public func integer(_ column: EventColumn, row: Int) -> Int64 {
        switch column {
        case .eventTimeMs: rows.eventTimes[row]
        case .receivedTimeMs: receivedTimeMs
        default: preconditionFailure("\(column.name) is not an integer column")
        }
    }
}

/// The store's answer for one batch, once committed.
public struct AppendResult: Sendable, Equatable {
    /// Per row of the batch: true when stored now, false when its event_id was already stored.
    public var inserted: [Bool]
    public var accepted: Int { inserted.filter { $0 }.count }
    public var duplicates: Int { inserted.count - accepted }

    public init(inserted: [Bool]) { self.inserted = inserted }
}

extension EventRows {
    /// Sets `field` to NULL in every row whose value `matches`; returns how many rows changed.
    /// (The bytes stay in ``bytes``, unreferenced: only spans are bound when rows are stored.)
    public mutating func nullify(_ field: Field, where matches: (UnsafeRawBufferPointer) -> Bool) -> Int {
        var changed = 0
        for row in 0..<count {
            let base = (row * Self.fieldCount + Self.slot(field)) * 2
            let (offset, length) = (Int(spans[base]), Int(spans[base + 1]))
            guard length >= 0 else { continue }
            let hit = bytes.withUnsafeBytes { matches(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + length)])) }
            if hit {
                spans[base] = 0
                spans[base + 1] = -1
                changed += 1
            }
        }
        return changed
    }
}

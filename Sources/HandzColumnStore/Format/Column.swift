import HandzAnalyticsCore

/// What a column of a chunk means; its encoding follows from it (``ChunkEncoder``).
public enum ColumnType: UInt8, Sendable, Equatable {
    /// Codes into the store's UUID dictionary (installs, sessions, users, the ids funnels link
    /// on): 0 is absent, n is entry n − 1.
    case uuid = 1
    /// Codes into the store's string dictionary (closed sets, versions, models, any other text):
    /// 0 is absent, n is entry n − 1.
    case string = 2
    /// Integers: 0 is absent, otherwise zigzag(value) + 1 (``IntegerCell``).
    case integer = 3
    /// 0 absent, 1 false, 2 true.
    case boolean = 4
    /// Epoch milliseconds, never absent.
    case time = 5
    /// The event id, 16 bytes, ordered as bytes (the tie-break of CH33 analysis).
    case eventID = 6
}

/// A column's values in memory, in row order.
public enum ColumnValues: Equatable, Sendable {
    /// ``ColumnType/uuid``, ``ColumnType/string`` and ``ColumnType/boolean`` columns.
    case codes([UInt32])
    /// ``ColumnType/integer`` columns, as ``IntegerCell`` words.
    case integers([UInt64])
    /// ``ColumnType/time`` columns.
    case times([Int64])
    /// The ``ColumnType/eventID`` column.
    case ids([UUIDWords])

    public var count: Int {
        switch self {
        case .codes(let values): values.count
        case .integers(let values): values.count
        case .times(let values): values.count
        case .ids(let values): values.count
        }
    }

    /// Whether no row has a value (codes and integer words 0; times and ids are never absent).
    var isAllAbsent: Bool {
        switch self {
        case .codes(let values): values.allSatisfy { $0 == 0 }
        case .integers(let values): values.allSatisfy { $0 == IntegerCell.absent }
        case .times, .ids: false
        }
    }

    /// The values of `rows`, in that order (sorting a chunk, merging parts).
    func gathered(_ rows: [Int]) -> ColumnValues {
        switch self {
        case .codes(let values): .codes(rows.map { values[$0] })
        case .integers(let values): .integers(rows.map { values[$0] })
        case .times(let values): .times(rows.map { values[$0] })
        case .ids(let values): .ids(rows.map { values[$0] })
        }
    }

    /// An all-absent column of `count` rows of `type` (a part that lacks a property another has).
    static func absent(_ type: ColumnType, count: Int) -> ColumnValues {
        switch type {
        case .uuid, .string, .boolean: .codes(Array(repeating: 0, count: count))
        case .integer: .integers(Array(repeating: 0, count: count))
        case .time: .times(Array(repeating: 0, count: count))
        case .eventID: .ids(Array(repeating: UUIDWords(high: 0, low: 0), count: count))
        }
    }

    static func + (lhs: ColumnValues, rhs: ColumnValues) -> ColumnValues? {
        switch (lhs, rhs) {
        case let (.codes(a), .codes(b)): .codes(a + b)
        case let (.integers(a), .integers(b)): .integers(a + b)
        case let (.times(a), .times(b)): .times(a + b)
        case let (.ids(a), .ids(b)): .ids(a + b)
        default: nil
        }
    }
}

/// One named, typed column of a chunk.
public struct Column: Equatable, Sendable {
    public var name: String
    public var type: ColumnType
    public var values: ColumnValues

    public init(name: String, type: ColumnType, values: ColumnValues) {
        self.name = name
        self.type = type
        self.values = values
    }
}

/// The word an ``ColumnType/integer`` column stores per row.
public enum IntegerCell {
    public static let absent: UInt64 = 0

    /// The word of `value`; nil for the two values whose word would not fit (|value| ≥ 2⁶³ − 1,
    /// far outside every catalogued range: such a property is left absent by the sealer).
    @inline(__always) public static func word(_ value: Int64) -> UInt64? {
        let encoded = ZigZag.encode(value)
        return encoded == .max ? nil : encoded + 1
    }

    @inline(__always) public static func value(_ word: UInt64) -> Int64? { word == 0 ? nil : ZigZag.decode(word - 1) }
}

/// The names of a chunk's fixed columns; a property's column is `properties.` + its key.
public enum ColumnName {
    public static let installID = EventColumn.installID.name
    public static let eventTime = EventColumn.eventTimeMs.name
    public static let eventID = EventColumn.eventID.name
    public static let receivedTime = EventColumn.receivedTimeMs.name
    public static let sessionID = EventColumn.sessionID.name
    public static let userID = EventColumn.userID.name
    public static let catalogVersion = EventColumn.catalogVersion.name
    static let propertyPrefix = EventColumn.properties.name + "."

    public static func property(_ key: String) -> String { propertyPrefix + key }

    /// The property key of a property column's name, or nil.
    public static func propertyKey(_ name: String) -> String? {
        name.hasPrefix(propertyPrefix) ? String(name.dropFirst(propertyPrefix.count)) : nil
    }
}

import HandzAnalyticsCore

/// One stored event as the exports write it (`handz-analytics export lake`): every column of
/// `events` (`EventColumn`, in table order), `event_id` as canonical lowercase UUID text,
/// `properties` as the JSON text of the object. Both stores produce it, so the lake does not
/// depend on which store wrote the events.
public struct ExportedEvent: Sendable, Equatable {
    /// One cell: text (NULL only for a nullable column) or an integer.
    public enum Cell: Sendable, Equatable {
        case text(String?)
        case integer(Int64)
    }

    /// The cells, one per `EventColumn` by its `rawValue`.
    public private(set) var cells: [Cell]

    public subscript(column: EventColumn) -> Cell {
        get { cells[column.rawValue] }
        set { cells[column.rawValue] = newValue }
    }

    /// When the endpoint received the event (CH33 §9): what the lake partitions by.
    public var receivedTimeMs: Int64 {
        guard case .integer(let value) = self[.receivedTimeMs] else { return 0 }
        return value
    }

    /// The columns in table order, as one SELECT list (`event_id` and `properties` spelled by
    /// the caller, since each engine stores them differently).
    public static func selectList(eventID: String, properties: String) -> String {
        EventColumn.allCases.map { column in
            switch column {
            case .eventID: eventID
            case .properties: properties
            default: column.name
            }
        }.joined(separator: ", ")
    }

    /// Builds one from the columns of ``selectList(eventID:properties:)``, reading each by its
    /// position with `text` or `integer` as its kind says. A NULL in a column that cannot be
    /// NULL reads as empty text (`{}` for `properties`).
    public static func read(text: (Int) -> String?, integer: (Int) -> Int64) -> ExportedEvent {
        ExportedEvent(cells: EventColumn.allCases.map { column in
            switch column.kind {
            case .integer: .integer(integer(column.rawValue))
            case .eventID, .text, .json:
                .text(text(column.rawValue) ?? (column.isNullable ? nil : column.kind == .json ? "{}" : ""))
            }
        })
    }
}

/// The order exports walk the store in: receive time, then event_id (byte order on SQLite equals
/// text order of the canonical UUID elsewhere), so an export of the same rows is the same bytes.
enum ExportOrder {
    static let sql = "ORDER BY received_time_ms, event_id"
}

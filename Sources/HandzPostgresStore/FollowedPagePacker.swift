import HandzAnalyticsCore
import HandzStore
import PostgresNIO

/// Packs the rows of ``PostgresEventStore/committedPage(after:limit:)`` (`commit_order`, then the
/// columns of `ExportedEvent.selectList` in `EventColumn` order) into a ``FollowedPage``. Text
/// cells are UTF-8 bytes in both of PostgreSQL's formats, so their bytes go straight into
/// `EventRows`; only the integers are decoded, and a receipt's key and catalog version become
/// strings once per change, not once per row.
struct FollowedPagePacker {
    private var packed = FollowedPage()
    /// Receipt → its place in `packed.batches`.
    private var places: [FollowedPage.Receipt: Int] = [:]
    /// The previous row's receipt (its cells) and place: consecutive rows of one receipt (each
    /// request its own transaction, the ingest nodes' case) skip the strings and the dictionary.
    private var previous: (receivedTimeMs: Int64, keyID: ByteBuffer?, catalogVersion: ByteBuffer?, place: Int)?
    /// The last row's commit_xid and event_id cell.
    private var last: (commitXID: UInt64, eventID: ByteBuffer)?
    /// The row being packed: each column's cell, by `EventColumn.rawValue`.
    private var cells = [ByteBuffer?](repeating: nil, count: EventColumn.allCases.count)

    mutating func add(_ row: PostgresRow) throws {
        var commitXID: UInt64 = 0
        var eventTimeMs: Int64 = 0
        var receivedTimeMs: Int64 = 0
        for (index, cell) in row.enumerated() {
            if index == 0 {
                commitXID = UInt64(try cell.decode(String.self)) ?? 0
                continue
            }
            let column = EventColumn.allCases[index - 1]
            switch column {
            case .eventTimeMs: eventTimeMs = try cell.decode(Int64.self)
            case .receivedTimeMs: receivedTimeMs = try cell.decode(Int64.self)
            default: cells[column.rawValue] = cell.bytes
            }
        }
        guard let idBytes = cells[EventColumn.eventID.rawValue],
              let id = idBytes.withUnsafeReadableBytes({ UUIDWords(lowercaseText: $0) }) else {
            throw StoreError.unavailable("the shared store holds an event_id that is not canonical UUID text")
        }
        let place = place(receivedTimeMs: receivedTimeMs)
        packed.batches[place].rows.beginRow(eventID: (id.high, id.low), eventTimeMs: eventTimeMs)
        for field in EventRows.fields {
            if let bytes = cells[field.rawValue] {
                bytes.withUnsafeReadableBytes { packed.batches[place].rows.appendField($0) }
            } else if field.isNullable {
                packed.batches[place].rows.appendField(nil)
            } else {
                // A NULL where the schema forbids one reads as `ExportedEvent.read` reads it.
                Array((field.kind == .json ? "{}" : "").utf8).withUnsafeBytes { packed.batches[place].rows.appendField($0) }
            }
        }
        packed.count += 1
        last = (commitXID, idBytes)
    }

    /// The page packed so far.
    var page: FollowedPage {
        var page = packed
        page.last = last.map { ($0.commitXID, String(buffer: $0.eventID)) }
        return page
    }

    /// A request column's text ("" for NULL, as `ExportedEvent.read` reads it).
    private func text(_ column: EventColumn) -> String {
        cells[column.rawValue].map { String(buffer: $0) } ?? ""
    }

    /// The place in `packed.batches` of the current row's receipt.
    private mutating func place(receivedTimeMs: Int64) -> Int {
        let (key, catalog) = (cells[EventColumn.keyID.rawValue], cells[EventColumn.catalogVersion.rawValue])
        if let previous, previous.receivedTimeMs == receivedTimeMs, previous.keyID == key, previous.catalogVersion == catalog {
            return previous.place
        }
        let receipt = FollowedPage.Receipt(receivedTimeMs: receivedTimeMs, keyID: text(.keyID), catalogVersion: text(.catalogVersion))
        let place: Int
        if let known = places[receipt] {
            place = known
        } else {
            place = packed.batches.count
            places[receipt] = place
            packed.batches.append((receipt, EventRows()))
        }
        previous = (receivedTimeMs, key, catalog, place)
        return place
    }
}

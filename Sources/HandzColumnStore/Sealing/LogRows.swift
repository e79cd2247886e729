import HandzAnalyticsCore
import HandzSQLite

/// Turns the log's rows (``LogSealer/selectList``) into chunk rows: each into the builder of its
/// (event name, UTC day), its session noted for the rollup. Shared by the seal of new rows and the
/// rewrite of changed ones (`LogRewriteApplier`), so both write a row the same way.
struct LogRows {
    /// Property keys already turned into column names.
    private var propertyNames: [String: String] = [:]
    private static let firstText = Int32(5)
    private static let propertiesColumn = Int32(5 + LogSealer.envelopeTextColumns.count)

    /// Adds the statement's current row; returns its rowid.
    mutating func add(_ statement: SQLiteStatement, to builders: inout [ChunkKey: ChunkBuilder], sessions: inout SessionRollup.Builder,
                      _ dictionaries: inout Dictionaries) throws -> Int64 {
        let name = statement.text(2) ?? ""
        let time = statement.int64(3)
        let key = ChunkKey(event: name, day: LogSealer.day(of: time))
        var builder = builders.removeValue(forKey: key) ?? ChunkBuilder(eventName: name, day: key.day, textColumns: LogSealer.envelopeTextColumns)
        let eventID = UUIDWords(orderingBytes: statement.bytes(1))
        builder.addRow(timeMs: time, receivedMs: statement.int64(4), eventID: eventID)
        // The envelope's columns are the builder's first text slots, in the same order.
        for offset in LogSealer.envelopeTextColumns.indices where !statement.isNull(Self.firstText + Int32(offset)) {
            builder.setText(slot: offset, statement.bytes(Self.firstText + Int32(offset)), &dictionaries)
        }
        try LogSealer.addProperties(statement.bytes(Self.propertiesColumn), to: &builder, names: &propertyNames, &dictionaries)
        sessions.note(day: key.day, install: builder.textCell(ColumnName.installID), session: builder.textCell(ColumnName.sessionID),
                      timeMs: time, eventID: eventID)
        builders[key] = builder
        return statement.int64(0)
    }
}

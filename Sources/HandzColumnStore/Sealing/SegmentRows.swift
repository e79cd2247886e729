import HandzAnalyticsCore
import HandzStore

/// Turns a segment record's rows (``BatchRecord``) into chunk rows, as ``LogRows`` does for the
/// SQLite log's: each into the builder of its (event name, UTC day), the same columns from the
/// same bytes, its session noted for the rollup. So the chunks sealed from segments are the ones
/// the log would have given for the same events (`SegmentSealingTests` holds them byte-equal).
struct SegmentRows {
    /// Property keys already turned into column names.
    private var propertyNames: [String: String] = [:]
    /// The envelope's text columns the event carries, by column name, in ``LogSealer/envelopeTextColumns`` order.
    private static let eventColumns: [(name: String, column: EventColumn)] = EventColumn.textColumns
        .filter { $0 != .eventName }
        .map { ($0.name, $0) }

    /// Adds every row of `record`.
    mutating func add(_ record: BatchRecord, to builders: inout [ChunkKey: ChunkBuilder], sessions: inout SessionRollup.Builder,
                      _ dictionaries: inout Dictionaries) throws {
        let rows = record.rows
        for row in 0..<rows.count {
            let name = rows.string(row, .eventName) ?? ""
            let time = rows.eventTimes[row]
            let key = ChunkKey(event: name, day: LogSealer.day(of: time))
            var builder = builders.removeValue(forKey: key) ?? ChunkBuilder(eventName: name, day: key.day)
            let eventID = rows.eventID(row).withUnsafeBytes { UUIDWords(orderingBytes: $0) }
            builder.addRow(timeMs: time, receivedMs: record.receivedTimeMs, eventID: eventID)
            for (column, field) in Self.eventColumns {
                switch field {
                case .keyID: builder.setText(column, record.keyID, &dictionaries)
                case .catalogVersion: builder.setText(column, record.catalogVersion, &dictionaries)
                default: rows.withField(row, field) { value in if let value { builder.setText(column, value, &dictionaries) } }
                }
            }
            try rows.withField(row, .properties) { json in
                if let json { try LogSealer.addProperties(json, to: &builder, names: &propertyNames, &dictionaries) }
            }
            sessions.note(day: key.day, install: builder.textCell(ColumnName.installID), session: builder.textCell(ColumnName.sessionID),
                          timeMs: time, eventID: eventID)
            builders[key] = builder
        }
    }
}

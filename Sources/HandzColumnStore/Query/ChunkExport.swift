import HandzAnalyticsCore
import HandzStore

/// Every stored event received in a range, read back from the chunks as whole rows in the
/// exports' order (receive time, then event id), for `export lake` and a deletion's lake step on
/// the segment engine (issue 34 §5): the same `ExportedEvent` the SQLite and PostgreSQL stores
/// give, so the lake does not depend on which store wrote it.
///
/// `properties` is written from the typed columns as a JSON object with its keys in order and
/// no spaces — equal as JSON to what the client sent, not always the same text (PostgreSQL's
/// `jsonb` output is not either). A property whose values in one chunk had different JSON types
/// reads as text there (``StoredEventRows`` says the same).
///
/// Memory stays bounded on any range: a first pass reads only each chunk's receive times; then
/// the range is cut into windows of about ``windowRows`` events, and each window's rows are read
/// from the chunks that hold some, sorted and handed on before the next window is read.
public struct ChunkExport {
    let store: ColumnStore
    /// About how many events one window holds (a window is at least one receive millisecond).
    public var windowRows = 500_000

    public init(store: ColumnStore) {
        self.store = store
    }

    /// The envelope's text columns the chunks keep, by their `events` column (the event name is the chunk's).
    static let textColumns = EventColumn.textColumns.filter { $0 != .eventName }

    /// Calls `body` with each event received in `fromMs..<toMs`, in export order.
    public func forEach(receivedFromMs fromMs: Int64, toMs: Int64, _ body: (ExportedEvent) throws -> Void) throws {
        // 1. Each chunk's receive times in the range, sorted: where the windows are cut.
        var spans: [(entry: ColumnManifest.ChunkEntry, min: Int64, max: Int64)] = []
        var times: [Int64] = []
        for entry in store.manifest.chunks {
            guard case .times(let received)? = try chunkColumn(entry, ColumnName.receivedTime) else { continue }
            var low = Int64.max, high = Int64.min
            for time in received where time >= fromMs && time < toMs {
                times.append(time)
                (low, high) = (min(low, time), max(high, time))
            }
            if low <= high { spans.append((entry, low, high)) }
        }
        guard !times.isEmpty else { return }
        times.sort()
        let dictionaries = try store.uuidDictionary()
        var start = 0
        while start < times.count {
            // 2. A window ends after about `windowRows` events, on a change of millisecond.
            var end = min(times.count, start + windowRows)
            while end < times.count && times[end] == times[end - 1] { end += 1 }
            let (low, high) = (times[start], times[end - 1])
            var rows: [(received: Int64, id: UUIDWords, event: ExportedEvent)] = []
            for span in spans where span.min <= high && span.max >= low {
                try read(span.entry, receivedFrom: low, through: high, dictionaries) { rows.append($0) }
            }
            rows.sort { ($0.received, $0.id) < ($1.received, $1.id) }
            for row in rows { try body(row.event) }
            start = end
        }
    }

    func chunkColumn(_ entry: ColumnManifest.ChunkEntry, _ name: String) throws(ColumnStoreError) -> ColumnValues? {
        let chunk = try store.chunk(entry)
        do { return try chunk.column(name) } catch { throw ColumnStoreError(error, file: entry.file) }
    }

    /// The rows of one chunk received in `low...high`, as exported events.
    func read(_ entry: ColumnManifest.ChunkEntry, receivedFrom low: Int64, through high: Int64, _ dictionaries: Dictionaries,
              _ add: ((received: Int64, id: UUIDWords, event: ExportedEvent)) -> Void) throws(ColumnStoreError) {
        let chunk = try store.chunk(entry)
        do throws(ChunkFormatError) {
            guard case .times(let received)? = try chunk.column(ColumnName.receivedTime),
                  case .times(let eventTimes)? = try chunk.column(ColumnName.eventTime),
                  case .ids(let ids)? = try chunk.column(ColumnName.eventID) else { throw ChunkFormatError.malformed("no fixed columns") }
            var texts: [EventColumn: (type: ColumnType, codes: [UInt32])] = [:]
            for column in Self.textColumns {
                if let type = chunk.entry(column.name)?.type, case .codes(let codes)? = try chunk.column(column.name) { texts[column] = (type, codes) }
            }
            var properties: [(key: [UInt8], type: ColumnType, values: ColumnValues)] = []
            for column in chunk.entries {
                guard let key = ColumnName.propertyKey(column.name) else { continue }
                properties.append((StoredEventRows.jsonString(key), column.type, try chunk.values(of: column)))
            }
            properties.sort { $0.key.lexicographicallyPrecedes($1.key) }
            for row in 0..<chunk.rows where received[row] >= low && received[row] <= high {
                let json = StoredEventRows.jsonObject(properties, row: row, dictionaries)
                let event = ExportedEvent.read(text: { position -> String? in
                    let column = EventColumn.allCases[position]
                    switch column {
                    case .eventID: return ids[row].canonicalText
                    case .eventName: return entry.event
                    case .properties: return String(decoding: json, as: UTF8.self)
                    default:
                        guard let cells = texts[column], cells.codes[row] != 0 else { return nil }
                        return dictionaries.text(cells.codes[row], type: cells.type)
                    }
                }, integer: { position in EventColumn.allCases[position] == .eventTimeMs ? eventTimes[row] : received[row] })
                add((received[row], ids[row], event))
            }
        } catch { throw ColumnStoreError(error, file: entry.file) }
    }
}

import HandzAnalyticsCore

/// Every stored event read back from the chunks as the log's row gives it, for readers that
/// take whole events rather than aggregates (`qa --db`, CH33 §8): the id, name, time, install,
/// session and `user_state` as text, and the asked properties as a JSON object (`{}` when it has
/// none of them), each value with the JSON type it was stored with — text as a string, integers
/// as numbers, booleans as `true`/`false`.
///
/// One difference from the log is possible and documented: a property whose values in one chunk
/// (one event name and day) have different JSON types is a text column there
/// (``ChunkBuilder``), so its integers and booleans read back as strings. Validated events
/// cannot differ (each catalogued property has one type); rows the validator never saw could.
public struct StoredEventRows {
    public struct Row {
        public var eventID: UUIDWords
        public var name: String
        public var timeMs: Int64
        public var installID: String
        public var sessionID: String
        public var userState: String
        /// The asked properties this event has, as a JSON object's UTF-8 bytes.
        public var propertiesJSON: [UInt8]
    }

    let store: ColumnStore

    public init(store: ColumnStore) {
        self.store = store
    }

    /// Calls `body` with every stored event, chunk after chunk (an event name and UTC day at a
    /// time, in install order within each), with the `properties` (catalog names) it carries.
    public func forEach(properties: [String], _ body: (Row) throws -> Void) throws {
        let dictionaries = try store.uuidDictionary()
        for entry in store.manifest.chunks {
            let read = try store.columns(entry)
            let ids = try read.ids()
            let times = try read.times(ColumnName.eventTime)
            let installs = try read.labels(ColumnName.installID, dictionaries: dictionaries)
            let sessions = try read.labels(ColumnName.sessionID, dictionaries: dictionaries)
            let userStates = try read.labels(RowMatchers.columnName("user_state"), dictionaries: dictionaries)
            var columns: [(key: [UInt8], type: ColumnType, values: ColumnValues)] = []
            for name in properties {
                let column = ColumnName.property(name)
                guard let type = read.chunk.entry(column)?.type, let values = try read.valuesIfPresent(column) else { continue }
                columns.append((Self.jsonString(name), type, values))
            }
            for row in 0..<read.chunk.rows {
                let json = Self.jsonObject(columns, row: row, dictionaries)
                try body(Row(eventID: ids[row], name: entry.event, timeMs: times[row], installID: installs[row] ?? "", sessionID: sessions[row] ?? "",
                             userState: userStates[row] ?? "", propertiesJSON: json))
            }
        }
    }

    /// One row's properties as a JSON object: each column's key (already a JSON string) and its
    /// value, in the columns' order, absent cells left out.
    static func jsonObject(_ columns: [(key: [UInt8], type: ColumnType, values: ColumnValues)], row: Int, _ dictionaries: Dictionaries) -> [UInt8] {
        var json: [UInt8] = [UInt8(ascii: "{")]
        for column in columns {
            guard let value = jsonValue(column.values, type: column.type, row: row, dictionaries) else { continue }
            if json.count > 1 { json.append(UInt8(ascii: ",")) }
            json += column.key
            json.append(UInt8(ascii: ":"))
            json += value
        }
        json.append(UInt8(ascii: "}"))
        return json
    }

    /// A cell as JSON, nil when absent.
    static func jsonValue(_ values: ColumnValues, type: ColumnType, row: Int, _ dictionaries: Dictionaries) -> [UInt8]? {
        switch values {
        case .codes(let codes):
            let code = codes[row]
            guard code != 0 else { return nil }
            if type == .boolean { return Array((code == 2 ? "true" : "false").utf8) }
            return dictionaries.text(code, type: type).map(jsonString)
        case .integers(let words):
            return IntegerCell.value(words[row]).map { Array(String($0).utf8) }
        case .times, .ids:
            return nil
        }
    }

    /// `text` as a JSON string: quoted, with `"`, `\` and control characters escaped.
    static func jsonString(_ text: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }
}

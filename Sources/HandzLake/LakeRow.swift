import HandzAnalyticsCore
import HandzStore

/// One line of a lake data file: a JSON object with the columns of `events` in table order
/// (`EventColumn`), `event_id` as canonical UUID text and `properties` as a JSON **string**
/// holding the object, so every engine reads it with its usual JSON functions
/// (`get_json_object`, `JSONExtract`, `json_extract_string`) exactly as it reads the `events` table.
enum LakeRow {
    static func line(_ event: ExportedEvent) -> String {
        var out = "{"
        for column in EventColumn.allCases {
            if column.rawValue > 0 { out += "," }
            out += "\"\(column.name)\":"
            switch event[column] {
            case .integer(let value): out += String(value)
            case .text(let value): out += value.map(JSONString.quoted) ?? "null"
            }
        }
        return out + "}\n"
    }
}

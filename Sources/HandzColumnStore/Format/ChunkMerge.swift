import HandzAnalyticsCore

/// Merges the parts of one (event, day) into one chunk's columns, rows in the chunk order
/// (install code, event time, event id). A column missing from a part is absent on its rows; a
/// column whose type differs between parts (a UUID column in one, text in another; an integer
/// column that became text) is merged as text, the way ``ChunkBuilder`` resolves the same
/// conflict within a part. Pure but for interning the text it converts.
enum ChunkMerge {
    static func merge(_ parts: [ChunkFile], _ dictionaries: inout Dictionaries) throws(ChunkFormatError) -> [Column] {
        var decoded: [[Column]] = []
        for part in parts { decoded.append(try part.allColumns()) }
        let rowCounts = parts.map(\.rows)
        // Column names in first-seen order, each with the type it will have.
        var names: [String] = []
        var types: [String: ColumnType] = [:]
        for columns in decoded {
            for column in columns {
                if let known = types[column.name] {
                    if known != column.type { types[column.name] = .string }
                } else {
                    names.append(column.name)
                    types[column.name] = column.type
                }
            }
        }
        var merged: [Column] = []
        for name in names {
            let type = types[name]!
            var values: ColumnValues?
            for (index, columns) in decoded.enumerated() {
                let part = columns.first { $0.name == name }.map { converted($0, to: type, &dictionaries) }
                    ?? ColumnValues.absent(type, count: rowCounts[index])
                values = values.map { ($0 + part)! } ?? part
            }
            merged.append(Column(name: name, type: type, values: values!))
        }
        guard case .codes(let installs)? = merged.first(where: { $0.name == ColumnName.installID })?.values,
              case .times(let times)? = merged.first(where: { $0.name == ColumnName.eventTime })?.values,
              case .ids(let ids)? = merged.first(where: { $0.name == ColumnName.eventID })?.values
        else { throw .malformed("a part without its install, time or id column") }
        let order = (0..<installs.count).sorted { a, b in
            if installs[a] != installs[b] { return installs[a] < installs[b] }
            if times[a] != times[b] { return times[a] < times[b] }
            return ids[a] < ids[b]
        }
        return merged.map { Column(name: $0.name, type: $0.type, values: $0.values.gathered(order)) }
    }

    /// `column`'s values as a column of `type` (the same type, or text).
    static func converted(_ column: Column, to type: ColumnType, _ dictionaries: inout Dictionaries) -> ColumnValues {
        guard column.type != type else { return column.values }
        precondition(type == .string, "parts disagree only into text")
        switch column.values {
        case .codes(let codes):
            return .codes(codes.map { code in
                guard code != 0, let text = dictionaries.text(code, type: column.type) else { return 0 }
                return dictionaries.code(string: text)
            })
        case .integers(let words):
            return .codes(words.map { word in IntegerCell.value(word).map { dictionaries.code(string: String($0)) } ?? 0 })
        case .times, .ids:
            // The fixed columns have one type in every part.
            return .codes(Array(repeating: 0, count: column.values.count))
        }
    }
}

import HandzAnalyticsCore

/// Collects the rows of one chunk (one event name, one UTC day) as the sealer reads them, and
/// gives its columns in the chunk's order: install, then event time, then event id. Pure.
///
/// Text is interned as it arrives (``Dictionaries``). A text value that is a canonical
/// lower-case UUID is kept in the UUID dictionary; any other in the string dictionary. A column
/// is a ``ColumnType/uuid`` column when every value it holds in this chunk is a UUID, and a
/// ``ColumnType/string`` column otherwise (its UUIDs then written as text), so a value reads
/// back exactly as it was stored. A property's column takes the JSON type of its first value;
/// a later value of another type turns the column into text (an integer as its decimal digits,
/// a boolean as `true`/`false`), which is how the SQL engines read such a property too.
public struct ChunkBuilder: Sendable {
    public let eventName: String
    public let day: Int64
    public private(set) var rowCount = 0
    var times: [Int64] = []
    var received: [Int64] = []
    var ids: [UUIDWords] = []
    /// Text columns by slot (a small index, so the sealer's hot path hashes no column name):
    /// 0 absent; ``uuidFlag`` | code for a UUID; the string code otherwise. A column is a text
    /// column, an integer column or a boolean column, never two at once.
    var textSlots: [String: Int] = [:]
    var textNames: [String] = []
    var textCells: [[UInt64]] = []
    /// Per text slot, the last value interned (its bytes) and its cell: consecutive rows of one
    /// request mostly repeat a value (the install, the session, the app version), which then
    /// costs a byte compare instead of a UUID parse and a dictionary lookup.
    var lastBytes: [[UInt8]] = []
    var lastCells: [UInt64] = []
    var integers: [String: [UInt64]] = [:]
    var booleans: [String: [UInt32]] = [:]

    static let uuidFlag: UInt64 = 1 << 63

    /// `textColumns` take slots 0, 1, … in order (the `setText(slot:…)` setters); a slot no row sets a
    /// value in is left out of the chunk.
    public init(eventName: String, day: Int64, textColumns: [String] = []) {
        self.eventName = eventName
        self.day = day
        for name in textColumns { _ = addTextSlot(name) }
    }

    /// Starts a row; the text, integer and boolean setters then fill its other columns.
    public mutating func addRow(timeMs: Int64, receivedMs: Int64, eventID: UUIDWords) {
        times.append(timeMs)
        received.append(receivedMs)
        ids.append(eventID)
        rowCount += 1
    }

    /// The slot of text column `column`, made when new. An integer or boolean column of that
    /// name is turned into text first, value by value, interned in `dictionaries`.
    mutating func textSlot(_ column: String, _ dictionaries: inout Dictionaries) -> Int {
        if let slot = textSlots[column] { return slot }
        var cells: [UInt64] = []
        if let words = integers.removeValue(forKey: column) {
            cells = words.map { word in IntegerCell.value(word).map { UInt64(dictionaries.code(string: String($0))) } ?? 0 }
        } else if let codes = booleans.removeValue(forKey: column) {
            cells = codes.map { $0 == 0 ? 0 : UInt64(dictionaries.code(string: $0 == 2 ? "true" : "false")) }
        }
        return addTextSlot(column, cells)
    }

    /// A new text slot (the caller knows `column` is not an integer or boolean column).
    private mutating func addTextSlot(_ column: String, _ cells: [UInt64] = []) -> Int {
        precondition(textSlots[column] == nil && integers[column] == nil && booleans[column] == nil)
        textSlots[column] = textNames.count
        textNames.append(column)
        textCells.append(cells)
        lastBytes.append([])
        lastCells.append(0)
        return textNames.count - 1
    }

    /// The current row's `column` holds `text` (UTF-8 bytes).
    public mutating func setText(_ column: String, _ text: UnsafeRawBufferPointer, _ dictionaries: inout Dictionaries) {
        setText(slot: textSlot(column, &dictionaries), text, &dictionaries)
    }

    /// The current row's text column in `slot` holds `text` (UTF-8 bytes).
    public mutating func setText(slot: Int, _ text: UnsafeRawBufferPointer, _ dictionaries: inout Dictionaries) {
        let cell: UInt64
        if text.count == lastBytes[slot].count && lastCells[slot] != 0 && lastBytes[slot].withUnsafeBytes({ $0.elementsEqual(text) }) {
            cell = lastCells[slot]
        } else {
            if let id = UUIDWords(lowercaseText: text), id != Dictionaries.tombstone {
                cell = Self.uuidFlag | UInt64(dictionaries.code(uuid: id))
            } else {
                cell = UInt64(dictionaries.code(string: String(decoding: text, as: UTF8.self)))
            }
            lastBytes[slot] = Array(text)
            lastCells[slot] = cell
        }
        Self.set(&textCells[slot], cell, row: rowCount - 1)
    }

    public mutating func setText(slot: Int, _ text: String, _ dictionaries: inout Dictionaries) {
        var text = text
        text.withUTF8 { setText(slot: slot, UnsafeRawBufferPointer($0), &dictionaries) }
    }

    public mutating func setText(_ column: String, _ text: String, _ dictionaries: inout Dictionaries) {
        var text = text
        text.withUTF8 { setText(column, UnsafeRawBufferPointer($0), &dictionaries) }
    }

    /// The current row's `column` cell as interned (``uuidFlag`` | code, a string code, or 0).
    func textCell(_ column: String) -> UInt64 {
        guard let slot = textSlots[column], textCells[slot].count == rowCount else { return 0 }
        return textCells[slot][rowCount - 1]
    }

    /// Codes of one dictionary in another: entry n of a chunk's own ``Dictionaries`` has the
    /// store's code `uuids[n]` or `strings[n]` (``SegmentRows``' workers intern locally).
    struct Recoding {
        var uuids: [UInt32]
        var strings: [UInt32]

        /// Adds `local`'s entries to `global` in `local`'s order, so `global` numbers its new
        /// values as it would have had every cell been interned in it directly, in the same order.
        init(adopting local: Dictionaries, into global: inout Dictionaries) {
            uuids = local.uuids.map { global.code(uuid: $0) }
            strings = local.strings.map { global.code(string: $0) }
        }

        /// `cell` (a flagged UUID code, a string code, or 0 for absent) in the other dictionary.
        func cell(_ cell: UInt64) -> UInt64 {
            if cell == 0 { return 0 }
            if cell & ChunkBuilder.uuidFlag != 0 { return ChunkBuilder.uuidFlag | UInt64(uuids[Int(cell & ~ChunkBuilder.uuidFlag) - 1]) }
            return UInt64(strings[Int(cell) - 1])
        }
    }

    /// Every text cell in the codes of `recoding`'s dictionary (the one later rows and
    /// ``columns(_:)`` then use).
    mutating func recode(_ recoding: Recoding) {
        for slot in textCells.indices {
            textCells[slot].withUnsafeMutableBufferPointer { cells in
                for index in cells.indices { cells[index] = recoding.cell(cells[index]) }
            }
            lastBytes[slot] = []
            lastCells[slot] = 0
        }
    }

    /// Sets the current row's `column` to a cell ``textCell(_:)`` gave (the session rollup).
    mutating func setTextCell(_ column: String, _ cell: UInt64) {
        guard cell != 0 else { return }
        let slot = textSlots[column] ?? addTextSlot(column)
        Self.set(&textCells[slot], cell, row: rowCount - 1)
    }

    public mutating func setInteger(_ column: String, _ value: Int64, _ dictionaries: inout Dictionaries) {
        if textSlots[column] != nil || booleans[column] != nil {
            setText(column, String(value), &dictionaries)
            return
        }
        // The two values whose word does not fit are far outside every catalogued range: text.
        guard let word = IntegerCell.word(value) else {
            promoteToText(column, &dictionaries)
            setText(column, String(value), &dictionaries)
            return
        }
        Self.set(&integers[column, default: []], word, row: rowCount - 1)
    }

    public mutating func setBoolean(_ column: String, _ value: Bool, _ dictionaries: inout Dictionaries) {
        if textSlots[column] != nil || integers[column] != nil {
            setText(column, value ? "true" : "false", &dictionaries)
            return
        }
        Self.set(&booleans[column, default: []], value ? 2 : 1, row: rowCount - 1)
    }

    /// Pads `values` with absent cells up to `row`, then sets it.
    static func set<T: FixedWidthInteger>(_ values: inout [T], _ value: T, row: Int) {
        if values.count < row { values.append(contentsOf: repeatElement(0, count: row - values.count)) }
        if values.count == row { values.append(value) } else { values[row] = value }
    }

    /// Turns an integer or boolean column into text, value by value.
    mutating func promoteToText(_ column: String, _ dictionaries: inout Dictionaries) {
        _ = textSlot(column, &dictionaries)
    }

    /// The chunk's columns, rows sorted by (install code, event time, event id): the fixed
    /// columns first, then the envelope's text columns and the properties, by name.
    public func columns(_ dictionaries: inout Dictionaries) -> [Column] {
        let installCells = textSlots[ColumnName.installID].map { textCells[$0] } ?? []
        let installs = installCells + repeatElement(0, count: rowCount - installCells.count)
        let order = (0..<rowCount).sorted { a, b in
            if installs[a] != installs[b] { return installs[a] < installs[b] }
            if times[a] != times[b] { return times[a] < times[b] }
            return ids[a] < ids[b]
        }
        var columns = [
            Column(name: ColumnName.eventTime, type: .time, values: .times(order.map { times[$0] })),
            Column(name: ColumnName.eventID, type: .eventID, values: .ids(order.map { ids[$0] })),
            Column(name: ColumnName.receivedTime, type: .time, values: .times(order.map { received[$0] })),
        ]
        // A text column holds a value in some row (a slot made in advance may hold none).
        let present = textNames.indices.filter { textCells[$0].contains { $0 != 0 } }.map { textNames[$0] }
        let fixed = [ColumnName.installID, ColumnName.sessionID, ColumnName.userID]
        let names = fixed.filter { present.contains($0) } + present.filter { !fixed.contains($0) }.sorted()
        for name in names {
            let cells = padded(textCells[textSlots[name]!])
            columns.append(textColumn(name, order.map { cells[$0] }, &dictionaries))
        }
        for name in integers.keys.sorted() {
            let words = padded(integers[name]!)
            columns.append(Column(name: name, type: .integer, values: .integers(order.map { words[$0] })))
        }
        for name in booleans.keys.sorted() {
            let codes = padded(booleans[name]!)
            columns.append(Column(name: name, type: .boolean, values: .codes(order.map { codes[$0] })))
        }
        // The install first: the column the chunk is sorted by (delta-encoded).
        if let index = columns.firstIndex(where: { $0.name == ColumnName.installID }) { columns.insert(columns.remove(at: index), at: 0) }
        return columns
    }

    func padded<T: FixedWidthInteger>(_ values: [T]) -> [T] {
        values.count == rowCount ? values : values + repeatElement(0, count: rowCount - values.count)
    }

    /// A UUID column when every present cell is a UUID, else a string column.
    func textColumn(_ name: String, _ cells: [UInt64], _ dictionaries: inout Dictionaries) -> Column {
        let flag = Self.uuidFlag
        if cells.allSatisfy({ $0 == 0 || $0 & flag != 0 }) && cells.contains(where: { $0 != 0 }) {
            return Column(name: name, type: .uuid, values: .codes(cells.map { UInt32(truncatingIfNeeded: $0 & ~flag) }))
        }
        let codes = cells.map { cell -> UInt32 in
            guard cell & flag != 0 else { return UInt32(truncatingIfNeeded: cell) }
            let text = dictionaries.uuid(UInt32(truncatingIfNeeded: cell & ~flag))!.canonicalText
            return dictionaries.code(string: text)
        }
        return Column(name: name, type: .string, values: .codes(codes))
    }
}

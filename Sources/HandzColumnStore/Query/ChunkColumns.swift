import HandzAnalyticsCore

/// A query's typed access to one chunk's columns: format errors become ``ColumnStoreError``s
/// naming the chunk's file, and a column read as another type than it was written is converted
/// where that has one meaning (booleans written as text; text read as booleans), else reads as
/// absent.
struct ChunkColumns {
    let chunk: ChunkFile
    let file: String

    /// Decoded columns shared with other queries on the same store, when it keeps them.
    let cache: ColumnCache?

    init(chunk: ChunkFile, file: String, cache: ColumnCache? = nil) {
        self.chunk = chunk
        self.file = file
        self.cache = cache
    }

    /// The column's values, nil when the chunk lacks it.
    func valuesIfPresent(_ name: String) throws(ColumnStoreError) -> ColumnValues? { try values(name) }

    private func values(_ name: String) throws(ColumnStoreError) -> ColumnValues? {
        if let cache, let kept = cache.column(file, name) { return kept }
        let values: ColumnValues?
        do { values = try chunk.column(name) } catch { throw ColumnStoreError(error, file: file) }
        if let cache, let values { cache.keep(values, file: file, name: name) }
        return values
    }

    /// A code column every row has (the install).
    func codes(_ name: String) throws(ColumnStoreError) -> [UInt32] {
        guard case .codes(let codes)? = try values(name) else {
            throw ColumnStoreError(.corruptFile, file: file, reason: "no code column \(name)")
        }
        return codes
    }

    func times(_ name: String) throws(ColumnStoreError) -> [Int64] {
        guard case .times(let times)? = try values(name) else {
            throw ColumnStoreError(.corruptFile, file: file, reason: "no time column \(name)")
        }
        return times
    }

    func ids() throws(ColumnStoreError) -> [UUIDWords] {
        guard case .ids(let ids)? = try values(ColumnName.eventID) else {
            throw ColumnStoreError(.corruptFile, file: file, reason: "no event-id column")
        }
        return ids
    }

    /// The column's codes as `type` codes, or nil when no row can hold a value of that type
    /// (the chunk lacks the column, or holds another kind of value in it).
    func codesIfPresent(_ name: String, type: ColumnType, strings: Dictionaries) throws(ColumnStoreError) -> [UInt32]? {
        guard let entry = chunk.entry(name), case .codes(let codes)? = try values(name) else { return nil }
        switch (entry.type, type) {
        case _ where entry.type == type:
            return codes
        case (.string, .boolean):
            let truth = strings.existingCode(string: "true"), falsity = strings.existingCode(string: "false")
            return codes.map { $0 != 0 && $0 == truth ? 2 : ($0 != 0 && $0 == falsity ? 1 : 0) }
        case (.boolean, .string):
            let truth = strings.existingCode(string: "true") ?? 0, falsity = strings.existingCode(string: "false") ?? 0
            return codes.map { $0 == 2 ? truth : ($0 == 1 ? falsity : 0) }
        default:
            return nil
        }
    }

    /// Each row's value as text (a breakdown's label): nil when absent. Closed sets and versions
    /// only (``FunnelSQLBuilder/checkBreakdown(_:funnel:)``), so string and boolean columns.
    func labels(_ name: String, dictionaries: Dictionaries) throws(ColumnStoreError) -> [String?] {
        guard let entry = chunk.entry(name), let values = try values(name) else { return Array(repeating: nil, count: chunk.rows) }
        switch values {
        case .codes(let codes):
            var cache: [UInt32: String?] = [:]
            return codes.map { code in
                if let known = cache[code] { return known }
                let text = code == 0 ? nil : dictionaries.text(code, type: entry.type)
                cache[code] = text
                return text
            }
        case .integers(let words):
            return words.map { IntegerCell.value($0).map(String.init) }
        case .times, .ids:
            return Array(repeating: nil, count: chunk.rows)
        }
    }

    /// A text column every row has (the install), as ``TextKeys``.
    func keys(_ name: String, _ keys: TextKeys) throws(ColumnStoreError) -> [UInt64] {
        guard let type = chunk.entry(name)?.type else { throw ColumnStoreError(.corruptFile, file: file, reason: "no column \(name)") }
        return keys.keys(try codes(name), type: type)
    }

    /// Each row's value as text, keyed (``TextKeys``; 0 absent) — what SQL compares as text.
    func textKeys(_ name: String, _ keys: TextKeys) throws(ColumnStoreError) -> [UInt64] {
        guard let entry = chunk.entry(name), let values = try values(name) else { return Array(repeating: 0, count: chunk.rows) }
        switch values {
        case .codes(let codes): return keys.keys(codes, type: entry.type)
        case .integers(let words): return words.map(TextKeys.integerKey)
        case .times, .ids: return Array(repeating: 0, count: chunk.rows)
        }
    }

    /// A text column's keys (``TextKeys``) read in place: a UUID column's codes are its keys, so
    /// none is copied; other columns' keys are made as ``textKeys(_:_:)`` makes them.
    func keyColumn(_ name: String, _ keys: TextKeys) throws(ColumnStoreError) -> KeyColumn {
        if chunk.entry(name)?.type == .uuid, case .codes(let codes)? = try values(name) { return KeyColumn(codes: codes) }
        return KeyColumn(keys: try textKeys(name, keys))
    }

    /// Each row's value as an integer (nil absent): an integer column's values; a text column's
    /// values that are decimal integers (SQL's cast of the text); nothing else. A validated store
    /// holds integer properties as integers (CH33 §1, the catalog's types), so the other cases
    /// are only there to read as SQL would.
    func integers(_ name: String, dictionaries: Dictionaries) throws(ColumnStoreError) -> [Int64?] {
        guard let entry = chunk.entry(name), let values = try values(name) else { return Array(repeating: nil, count: chunk.rows) }
        switch values {
        case .integers(let words): return words.map(IntegerCell.value)
        case .codes(let codes) where entry.type == .string:
            var cache: [UInt32: Int64?] = [:]
            return codes.map { code in
                if let known = cache[code] { return known }
                let value = dictionaries.string(code).flatMap { Int64($0) }
                cache[code] = value
                return value
            }
        default: return Array(repeating: nil, count: chunk.rows)
        }
    }
}

/// A text column's keys by row (``ChunkColumns/keyColumn(_:_:)``): a UUID column's codes as they
/// were decoded (the usual install and session columns), or keys made from another column type.
struct KeyColumn {
    private let codes: [UInt32]
    private let keys: [UInt64]
    private let fromCodes: Bool

    init(codes: [UInt32]) {
        (self.codes, keys, fromCodes) = (codes, [], true)
    }

    init(keys: [UInt64]) {
        (codes, self.keys, fromCodes) = ([], keys, false)
    }

    var count: Int { fromCodes ? codes.count : keys.count }

    @inline(__always) subscript(row: Int) -> UInt64 {
        fromCodes ? UInt64(codes[row]) : keys[row]
    }
}


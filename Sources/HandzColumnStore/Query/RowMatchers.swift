import HandzAnalyticsCore
import HandzQuery

/// Event matches (a set of event names and closed-set filters that must all hold: a funnel step,
/// a KPI's target, a panel's `match`) as one bit each per row of a chunk — the SQL's
/// `event_name IN (…) AND filters` (`PropertyAccess.matches`), answered on dictionary codes.
struct RowMatchers {
    /// A filter as codes: the column it reads and, per code, whether it is one of the values.
    struct CodeFilter {
        var column: String
        var type: ColumnType
        var allowed: [Bool]
        /// An integer property's values as ``IntegerCell`` words (SQL compares its text, the
        /// decimal digits); `allowed` then holds the same values as string codes, for a chunk
        /// whose column was written as text.
        var integerWords: Set<UInt64> = []
    }

    struct Matcher {
        var bit: UInt32
        /// Empty: any event (a funnel success on any event, F1's).
        var events: Set<String>
        var filters: [CodeFilter]
    }

    private(set) var matchers: [Matcher] = []

    /// Every event name a matcher names (empty when one matches any event).
    var eventNames: Set<String> { Set(matchers.flatMap(\.events)) }

    /// Adds `events` with `filters` as `bit`.
    mutating func add(bit: UInt32, events: [String], filters: [PropertyFilter], catalog: Catalog, strings: Dictionaries) {
        matchers.append(Matcher(bit: bit, events: Set(events), filters: filters.map { Self.codeFilter($0, catalog: catalog, strings: strings) }))
    }

    /// The bits every row of `chunk` has before filters, and the filtered bits with their code
    /// columns (a filter on a column the chunk lacks, or holds another kind of value in, never holds).
    func plan(_ read: ChunkColumns, strings: Dictionaries) throws(ColumnStoreError) -> (always: UInt32, filtered: [(bit: UInt32, checks: [(codes: [UInt32], allowed: [Bool])])]) {
        var always: UInt32 = 0
        var filtered: [(bit: UInt32, checks: [(codes: [UInt32], allowed: [Bool])])] = []
        for matcher in matchers where matcher.events.isEmpty || matcher.events.contains(read.chunk.eventName) {
            if matcher.filters.isEmpty { always |= matcher.bit; continue }
            var checks: [(codes: [UInt32], allowed: [Bool])] = []
            var impossible = false
            for filter in matcher.filters {
                if filter.type == .integer, case .integers(let words)? = try read.valuesIfPresent(filter.column) {
                    checks.append((words.map { filter.integerWords.contains($0) ? 1 : 0 }, [false, true]))
                    continue
                }
                let type = filter.type == .integer ? ColumnType.string : filter.type
                guard let codes = try read.codesIfPresent(filter.column, type: type, strings: strings) else { impossible = true; break }
                checks.append((codes, filter.allowed))
            }
            if !impossible { filtered.append((matcher.bit, checks)) }
        }
        return (always, filtered)
    }

    /// Each row's bits in `chunk`.
    func masks(_ read: ChunkColumns, strings: Dictionaries) throws(ColumnStoreError) -> [UInt32] {
        let (always, filtered) = try plan(read, strings: strings)
        var masks = [UInt32](repeating: always, count: read.chunk.rows)
        for (bit, checks) in filtered {
            for row in 0..<masks.count where checks.allSatisfy({ check in
                let code = Int(check.codes[row])
                return code < check.allowed.count && check.allowed[code]
            }) { masks[row] |= bit }
        }
        return masks
    }

    /// A filter's values as codes: a closed set's (enums and booleans) by their dictionary codes;
    /// an integer property's (a panel's `credits_remaining_after: ["0"]`) by their cell words.
    static func codeFilter(_ filter: PropertyFilter, catalog: Catalog, strings: Dictionaries) -> CodeFilter {
        let column = columnName(filter.property)
        if catalog.properties[filter.property]?.type == .boolean {
            var allowed = [false, false, false]
            for value in filter.values { if value == "true" { allowed[2] = true } else if value == "false" { allowed[1] = true } }
            return CodeFilter(column: column, type: .boolean, allowed: allowed)
        }
        var allowed = [Bool](repeating: false, count: strings.strings.count + 1)
        for value in filter.values { if let code = strings.existingCode(string: value) { allowed[Int(code)] = true } }
        if catalog.properties[filter.property]?.type == .integer {
            // Only canonical decimal text equals an integer's text.
            let words = filter.values.compactMap { text in Int64(text).flatMap { String($0) == text ? IntegerCell.word($0) : nil } }
            return CodeFilter(column: column, type: .integer, allowed: allowed, integerWords: Set(words))
        }
        return CodeFilter(column: column, type: .string, allowed: allowed)
    }

    /// The chunk column of a catalog property: an envelope field's own column, or the property's.
    static func columnName(_ property: String) -> String {
        EventsTable.envelopeColumns.contains(property) ? property : ColumnName.property(property)
    }
}

import HandzAnalyticsCore

/// One number per distinct text across a store's chunks, whatever column type held it: what a
/// query groups, links and compares on where SQL compares text.
///
/// Why it is needed: a chunk writes a text column as a ``ColumnType/uuid`` column only when every
/// value in it is a canonical lower-case UUID (``ChunkBuilder``); one upper-case id (the validator
/// accepts either case, CH33 §1) turns that chunk's column into a ``ColumnType/string`` column, and
/// the canonical ids in it are then string codes there and UUID codes everywhere else. Text
/// equality must not depend on that, so a string code whose text is a UUID the UUID dictionary
/// holds keys as that UUID's code. Booleans key as the strings `true` and `false` (how SQL reads
/// them as text).
///
/// Integers read as text (a property written as an integer in one chunk and, promoted by a
/// value of another type, as decimal text in another) key as the integer, from either side.
///
/// Keys: 0 absent; a UUID code as itself (below 2³²); a string code with bit 32 set; a boolean
/// with no `true`/`false` string in the store with bit 33 set; an integer's cell word with bit 62
/// set (exact for |value| < 2⁶⁰, far beyond every catalogued range). Built once per opened store; the
/// UUID dictionary is read only when the string dictionary holds canonical UUID text, which a
/// store of validated, lower-case ids never does.
public struct TextKeys: Sendable {
    static let stringTag: UInt64 = 1 << 32
    static let booleanTag: UInt64 = 1 << 33
    static let integerTag: UInt64 = 1 << 62
    /// String code → the key of the same text as a UUID or an integer, for the few strings that
    /// are UUIDs the UUID dictionary holds or decimal integers.
    let keyOfString: [UInt32: UInt64]
    let trueKey: UInt64
    let falseKey: UInt64

    /// `uuids` reads the UUID dictionary (called only when a string is canonical UUID text).
    init(strings dictionary: Dictionaries, uuids: () throws(ColumnStoreError) -> [UUIDWords]) throws(ColumnStoreError) {
        let strings = dictionary.strings
        var candidates: [(code: UInt32, id: UUIDWords)] = []
        var mapped: [UInt32: UInt64] = [:]
        for (index, text) in strings.enumerated() {
            if let id = UUIDWords(lowercaseString: text) {
                candidates.append((UInt32(index + 1), id))
            } else if let value = Int64(text), String(value) == text, let word = IntegerCell.word(value) {
                mapped[UInt32(index + 1)] = Self.integerKey(word)
            }
        }
        if !candidates.isEmpty {
            let wanted = Dictionary(candidates.map { ($0.id, $0.code) }, uniquingKeysWith: { first, _ in first })
            for (index, id) in try uuids().enumerated() {
                if let code = wanted[id] { mapped[code] = UInt64(index + 1) }
            }
        }
        keyOfString = mapped
        trueKey = dictionary.existingCode(string: "true").map { Self.stringTag | UInt64($0) } ?? (Self.booleanTag | 2)
        falseKey = dictionary.existingCode(string: "false").map { Self.stringTag | UInt64($0) } ?? (Self.booleanTag | 1)
    }

    /// The key of a cell of a column of `type` (absent: 0).
    @inline(__always) public func key(_ code: UInt32, type: ColumnType) -> UInt64 {
        guard code != 0 else { return 0 }
        switch type {
        case .uuid: return UInt64(code)
        case .string:
            if !keyOfString.isEmpty, let key = keyOfString[code] { return key }
            return Self.stringTag | UInt64(code)
        case .boolean: return code == 2 ? trueKey : falseKey
        default: return 0
        }
    }

    @inline(__always) static func integerKey(_ word: UInt64) -> UInt64 { word == 0 ? 0 : integerTag | (word & (integerTag - 1)) }

    /// The keys of a column's codes.
    public func keys(_ codes: [UInt32], type: ColumnType) -> [UInt64] {
        if type == .uuid { return codes.map(UInt64.init) }
        return codes.map { key($0, type: type) }
    }

    /// The text of a key (a label), given the dictionaries (UUIDs need the UUID half).
    public func text(_ key: UInt64, _ dictionaries: Dictionaries) -> String? {
        if key == 0 { return nil }
        if key & Self.integerTag != 0 { return IntegerCell.value(key & (Self.integerTag - 1)).map(String.init) }
        if key & Self.booleanTag != 0 { return key & 3 == 2 ? "true" : "false" }
        if key & Self.stringTag != 0 { return dictionaries.string(UInt32(truncatingIfNeeded: key)) }
        return dictionaries.uuid(UInt32(truncatingIfNeeded: key))?.canonicalText
    }
}

/// Dense numbers (0, 1, 2, …) for keys in order of first sight: an array for UUID codes, the
/// common case, and a hash map only for the other keys.
struct DenseNumbers {
    private var byCode: [Int32] = []
    private var byOtherKey: [UInt64: Int32] = [:]
    /// Each number's key.
    private(set) var keys: [UInt64] = []

    var count: Int { keys.count }

    /// The number of `key` (never 0), given on first sight.
    @inline(__always) mutating func number(_ key: UInt64) -> Int32 {
        if key < TextKeys.stringTag {
            let index = Int(key)
            if index < byCode.count, byCode[index] >= 0 { return byCode[index] }
            if index >= byCode.count { byCode += repeatElement(-1, count: max(index + 1 - byCode.count, byCode.count)) }
            byCode[index] = Int32(keys.count)
            keys.append(key)
            return byCode[index]
        }
        if let known = byOtherKey[key] { return known }
        let number = Int32(keys.count)
        byOtherKey[key] = number
        keys.append(key)
        return number
    }
}

/// Dense numbers for keys in key order, from a bitmap of the keys present: a key's number is the
/// count of smaller keys present — a count per 64-bit word, then one popcount within the word.
/// For keys below ``limit`` (UUID codes: one per distinct id of the store; the bitmap then takes
/// at most 32 MiB, and 232 KiB for the 1.86 M ids of 100,000 installs). Unlike a table of numbers
/// indexed by code (``DenseNumbers``), whose 4 bytes per code spread over megabytes and missed
/// the cache on most lookups (84 % of `ScannedRows`' time at 100,000 installs, perf annotate),
/// the bitmap and its counts stay in the cache. Used by the funnel's hand-over (actors) and by
/// ``ScannedRows`` (actors and sessions).
struct KeyRanks: Sendable {
    static let limit: UInt64 = 1 << 28
    private let present: [UInt64]
    /// The keys present under each word's first.
    private let below: [Int32]
    /// Each number's key, in key order.
    let keys: [UInt64]

    /// The ranks of every key in `lists` (each below ``limit``; `largestKey` at least the largest),
    /// leaving 0 out when `excludingZero` (an absent session).
    init(_ lists: some Sequence<[UInt64]>, largestKey: UInt64, excludingZero: Bool = false) {
        precondition(largestKey < Self.limit, "KeyRanks for keys past its limit")
        let words = Int(largestKey >> 6) + 1
        var present = [UInt64](repeating: 0, count: words)
        for keys in lists {
            for key in keys { present[Int(key >> 6)] |= 1 << (key & 63) }
        }
        if excludingZero { present[0] &= ~1 }
        var below = [Int32](repeating: 0, count: words)
        var keys: [UInt64] = []
        for word in 0..<words {
            below[word] = Int32(keys.count)
            var bits = present[word]
            while bits != 0 {
                keys.append(UInt64(word << 6 | bits.trailingZeroBitCount))
                bits &= bits - 1
            }
        }
        (self.present, self.below, self.keys) = (present, below, keys)
    }

    /// The number of `key`, or nil when it is not one of the ranked keys.
    @inline(__always) func rankIfPresent(_ key: UInt64) -> Int? {
        let word = Int(truncatingIfNeeded: key >> 6)
        guard key < Self.limit, word < present.count else { return nil }
        let bits = present[word]
        guard bits & (1 << (key & 63)) != 0 else { return nil }
        return Int(below[word]) + (bits & ((1 << (key & 63)) &- 1)).nonzeroBitCount
    }

    /// The number of `key`, which must be present.
    @inline(__always) func rank(_ key: UInt64) -> Int {
        Int(below[Int(key >> 6)]) + (present[Int(key >> 6)] & ((1 << (key & 63)) &- 1)).nonzeroBitCount
    }
}

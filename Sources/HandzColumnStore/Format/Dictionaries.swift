import HandzAnalyticsCore

/// The store's two dictionaries, in memory: every UUID a chunk refers to (installs, sessions,
/// users, ids that properties carry) and every other text value, each numbered densely in order
/// of first sight. A chunk stores codes (code n + 1 for entry n; 0 for absent), so an id of 16
/// bytes or a version string is written once per store, not once per event, and a funnel links
/// and groups on integers.
///
/// Both are append-only: sealing adds entries, never changes one. Deletion (CH34) rewrites the
/// UUID dictionary as a new file (copy on write) through the manifest, with the ids no chunk
/// refers to any more replaced by a tombstone (``tombstone``): the codes of the others stay, so
/// no chunk is rewritten for it.
public struct Dictionaries: Sendable {
    public private(set) var uuids: [UUIDWords] = []
    public private(set) var strings: [String] = []
    private var uuidCodes: [UUIDWords: UInt32] = [:]
    private var stringCodes: [String: UInt32] = [:]
    /// Whether the lookup tables are built (a reader that only decodes codes never needs them).
    private var indexed = false

    public init() {}

    init(uuids: [UUIDWords], strings: [String]) {
        self.uuids = uuids
        self.strings = strings
    }

    /// What a forgotten id's entry becomes: the nil UUID, which no stored value is (the sealer
    /// keeps a nil UUID as text, ``ChunkBuilder``), so a tombstone is never looked up.
    public static let tombstone = UUIDWords(high: 0, low: 0)

    /// The code (entry + 1) of `id`, added when new.
    public mutating func code(uuid id: UUIDWords) -> UInt32 {
        precondition(id != Self.tombstone, "the nil UUID is kept as text")
        buildIndexIfNeeded()
        if let code = uuidCodes[id] { return code }
        uuids.append(id)
        let code = UInt32(uuids.count)
        uuidCodes[id] = code
        return code
    }

    /// The code (entry + 1) of `text`, added when new.
    public mutating func code(string text: String) -> UInt32 {
        buildIndexIfNeeded()
        if let code = stringCodes[text] { return code }
        strings.append(text)
        let code = UInt32(strings.count)
        stringCodes[text] = code
        return code
    }

    /// Replaces the entries of `codes` by the tombstone (a deletion, CH34: ids no chunk refers
    /// to any more). Returns how many entries changed.
    @discardableResult
    mutating func tombstone(uuidCodes codes: some Sequence<UInt32>) -> Int {
        buildIndexIfNeeded()
        var changed = 0
        for code in codes where code >= 1 && Int(code) <= uuids.count && uuids[Int(code) - 1] != Self.tombstone {
            uuidCodes[uuids[Int(code) - 1]] = nil
            uuids[Int(code) - 1] = Self.tombstone
            changed += 1
        }
        return changed
    }

    /// The code of `id` if the dictionary has it (a forgotten id has none).
    public func existingCode(uuid id: UUIDWords) -> UInt32? {
        guard id != Self.tombstone else { return nil }
        if indexed { return uuidCodes[id] }
        return uuids.firstIndex(of: id).map { UInt32($0 + 1) }
    }

    /// The code of `text` if the dictionary has it (a filter's value no chunk holds has none).
    public func existingCode(string text: String) -> UInt32? {
        if indexed { return stringCodes[text] }
        return strings.firstIndex(of: text).map { UInt32($0 + 1) }
    }

    public func uuid(_ code: UInt32) -> UUIDWords? {
        code >= 1 && Int(code) <= uuids.count ? uuids[Int(code) - 1] : nil
    }

    public func string(_ code: UInt32) -> String? {
        code >= 1 && Int(code) <= strings.count ? strings[Int(code) - 1] : nil
    }

    /// The text a column of `type` holds at `code` (canonical lower-case for UUIDs), nil when absent.
    public func text(_ code: UInt32, type: ColumnType) -> String? {
        switch type {
        case .uuid: uuid(code).map(\.canonicalText)
        case .string: string(code)
        case .boolean: code == 0 ? nil : (code == 2 ? "true" : "false")
        default: nil
        }
    }

    private mutating func buildIndexIfNeeded() {
        guard !indexed else { return }
        indexed = true
        uuidCodes.reserveCapacity(uuids.count)
        for (index, id) in uuids.enumerated() where id != Self.tombstone { uuidCodes[id] = UInt32(index + 1) }
        for (index, text) in strings.enumerated() { stringCodes[text] = UInt32(index + 1) }
    }
}

extension UUIDWords {
    /// Canonical lower-case 8-4-4-4-12 text.
    public var canonicalText: String { UUIDv7.format(high: high, low: low) }
}

/// The bytes of the dictionary files: appended records, so a file written up to the count the
/// manifest records is valid whatever follows (a crashed seal's tail is ignored, then cut).
enum DictionaryEncoding {
    /// UUIDs: 16 bytes each, big-endian words.
    static func uuidRecords(_ ids: ArraySlice<UUIDWords>) -> [UInt8] {
        var out = ByteWriter(capacity: ids.count * 16)
        for id in ids {
            for shift in stride(from: 56, through: 0, by: -8) { out.bytes.append(UInt8(truncatingIfNeeded: id.high >> UInt64(shift))) }
            for shift in stride(from: 56, through: 0, by: -8) { out.bytes.append(UInt8(truncatingIfNeeded: id.low >> UInt64(shift))) }
        }
        return out.bytes
    }

    static func readUUIDs(_ bytes: UnsafeRawBufferPointer, count: Int) throws(ChunkFormatError) -> [UUIDWords] {
        guard bytes.count >= count * 16 else { throw .truncated }
        var ids: [UUIDWords] = []
        ids.reserveCapacity(count)
        for index in 0..<count {
            let base = index * 16
            var high: UInt64 = 0, low: UInt64 = 0
            for offset in 0..<8 { high = high << 8 | UInt64(bytes[base + offset]) }
            for offset in 8..<16 { low = low << 8 | UInt64(bytes[base + offset]) }
            ids.append(UUIDWords(high: high, low: low))
        }
        return ids
    }

    /// Strings: a varint length, then UTF-8.
    static func stringRecords(_ strings: ArraySlice<String>) -> [UInt8] {
        var out = ByteWriter()
        for text in strings { out.string(text) }
        return out.bytes
    }

    static func readStrings(_ bytes: UnsafeRawBufferPointer, count: Int) throws(ChunkFormatError) -> [String] {
        var reader = ByteReader(bytes)
        var strings: [String] = []
        strings.reserveCapacity(count)
        for _ in 0..<count { strings.append(try reader.string(atMost: 1 << 16)) }
        return strings
    }
}

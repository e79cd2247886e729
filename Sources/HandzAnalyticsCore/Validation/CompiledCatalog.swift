/// A ``Catalog`` compiled into the lookup tables the validator probes with raw input bytes:
/// names hash into one `SymbolTable`, each (event, property) pair resolves to one precompiled
/// `PropertyCheck`, and every table is a flat buffer read through a pointer.
///
/// Immutable and `Sendable`: compile once, share across threads; a catalog reload compiles a new one.
public final class CompiledCatalog: Sendable {
    public let catalog: Catalog
    public var version: String { catalog.version }
    public var limits: CatalogLimits { catalog.limits }
    public let keyLint: PIIKeyLint

    /// Property names by id (ids are positions in the sorted name list).
    let propertyNames: [String]
    /// Event names by index (catalog order).
    let eventNames: [String]
    /// What messages say about each check (names only; never values).
    let checkInfo: [CheckInfo]
    let tables: CatalogTables
    private let symbols: SymbolTable
    private let buffers: [AnyObject & Sendable]

    static let propertyNamespace = 0
    static let eventNamespace = 1
    static let timeZoneNamespace = 2
    static let firstEnumNamespace = 3

    public var propertyCount: Int { propertyNames.count }
    /// Ids of the properties whose format is `uuid`, ascending: the values the store keeps in
    /// canonical lower case (HandzStore docs, "Stored events").
    public let uuidPropertyIDs: [Int]

    public init(_ catalog: Catalog) {
        self.catalog = catalog
        keyLint = PIIKeyLint(policy: catalog.privacy)
        let names = catalog.properties.keys.sorted()
        var ids: [String: Int] = [:]
        for (index, name) in names.enumerated() { ids[name] = index }
        propertyNames = names
        eventNames = catalog.events.map(\.name)
        uuidPropertyIDs = names.indices.filter { catalog.properties[names[$0]]?.format == .uuid }

        var symbols: [(namespace: Int, key: String, value: Int)] = []
        symbols += names.enumerated().map { (Self.propertyNamespace, $0.element, $0.offset) }
        symbols.append((Self.propertyNamespace, EnvelopeDefinition.propertiesKey, names.count))
        symbols += catalog.events.enumerated().map { (Self.eventNamespace, $0.element.name, $0.offset) }
        symbols += Array(Set(catalog.timeZones)).sorted().map { (Self.timeZoneNamespace, $0, 0) }

        var builder = CheckBuilder()
        let globalCheck = names.map { Int32(builder.add(catalog.properties[$0]!, eventName: nil)) }
        var rules = [Int32](repeating: -1, count: max(catalog.events.count * names.count, 1))
        var requiredOffsets: [Int32] = [0]
        var requiredIDs: [Int32] = []
        for (eventIndex, event) in catalog.events.enumerated() {
            for rule in catalog.allowedProperties(of: event) {
                guard let id = ids[rule.name], let definition = catalog.effectiveDefinition(of: rule) else { continue }
                let narrowed = rule.allowedValues != nil || rule.minimum != nil || rule.maximum != nil
                rules[eventIndex * names.count + id] = narrowed ? Int32(builder.add(definition, eventName: event.name)) : globalCheck[id]
                if rule.isRequired { requiredIDs.append(Int32(id)) }
            }
            requiredOffsets.append(Int32(requiredIDs.count))
        }
        for (index, values) in builder.enumSets.enumerated() {
            symbols += values.enumerated().map { (Self.firstEnumNamespace + index, $0.element, $0.offset) }
        }
        let symbolTable = SymbolTable(symbols)
        self.symbols = symbolTable
        checkInfo = builder.info

        let topLevel = Set(catalog.envelope.required + catalog.envelope.optional)
        let isTopLevel = FixedBuffer(names.map { topLevel.contains($0) })
        let globalChecks = FixedBuffer(globalCheck)
        let checks = FixedBuffer(builder.checks)
        let eventRules = FixedBuffer(rules)
        let eventEnabled = FixedBuffer(catalog.events.map(\.isEnabled))
        let offsets = FixedBuffer(requiredOffsets)
        let required = FixedBuffer(requiredIDs)
        let requiredTop = FixedBuffer(catalog.envelope.required.compactMap { ids[$0].map(Int32.init) })
        // Names by id (and `properties` last) as one byte buffer, each followed by its closing
        // quote, so a predicted key is confirmed by one comparison that includes the quote.
        var nameOffsets: [Int32] = [0]
        var nameBytes: [UInt8] = []
        for name in names + [EnvelopeDefinition.propertiesKey] {
            nameBytes += Array(name.utf8) + [UInt8(ascii: "\"")]
            nameOffsets.append(Int32(nameBytes.count))
        }
        nameBytes += [UInt8](repeating: 0, count: 16)
        let names8 = FixedBuffer(nameBytes)
        let nameOffsetBuffer = FixedBuffer(nameOffsets)
        // Top-level properties get one bit each (at most 64), so "all required present" is one compare.
        let topLevelNames = (catalog.envelope.required + catalog.envelope.optional).prefix(64)
        var topBits = [UInt64](repeating: 0, count: names.count)
        var requiredTopMask: UInt64 = 0
        for (bit, name) in topLevelNames.enumerated() {
            guard let id = ids[name] else { continue }
            topBits[id] = 1 << UInt64(bit)
            if catalog.envelope.required.contains(name) { requiredTopMask |= 1 << UInt64(bit) }
        }
        let topBitBuffer = FixedBuffer(topBits)
        // Each event's required properties as a bitset over property ids.
        let words = (names.count + 63) / 64
        var requiredBits = [UInt64](repeating: 0, count: max(catalog.events.count * words, 1))
        for eventIndex in catalog.events.indices {
            for i in Int(requiredOffsets[eventIndex])..<Int(requiredOffsets[eventIndex + 1]) {
                let id = Int(requiredIDs[i])
                requiredBits[eventIndex * words + id / 64] |= 1 << UInt64(id % 64)
            }
        }
        let requiredBitBuffer = FixedBuffer(requiredBits)
        buffers = [isTopLevel, globalChecks, checks, eventRules, eventEnabled, offsets, required, requiredTop,
                   names8, nameOffsetBuffer, topBitBuffer, requiredBitBuffer]
        tables = CatalogTables(
            symbols: symbolTable.raw, isTopLevel: isTopLevel.pointer, globalCheck: globalChecks.pointer, checks: checks.pointer,
            eventRules: eventRules.pointer, eventEnabled: eventEnabled.pointer, requiredOffsets: offsets.pointer,
            requiredIDs: required.pointer, requiredTopLevel: requiredTop.pointer, requiredTopLevelCount: requiredTop.count,
            propertyCount: names.count, propertiesKeyID: names.count, eventNameID: ids["event_name"] ?? -1,
            optInID: ids["analytics_opt_in"] ?? -1, maxScanDepth: catalog.limits.maxScanDepth,
            nameBytes: names8.pointer, nameOffsets: nameOffsetBuffer.pointer, topLevelBit: topBitBuffer.pointer,
            requiredTopMask: requiredTopMask, bitWords: words, eventRequiredBits: requiredBitBuffer.pointer,
            eventCount: catalog.events.count, checkCount: builder.checks.count
        )
    }

    /// The id of a property by name, or nil.
    public func propertyID(named name: String) -> Int? {
        let id = symbols.lookup(Self.propertyNamespace, name)
        return id >= 0 && id < propertyNames.count ? id : nil
    }

    public func propertyName(_ id: Int) -> String { propertyNames[id] }

    /// The index of a catalogued event (into `catalog.events`), or nil.
    public func eventIndex(named name: String) -> Int? {
        let index = symbols.lookup(Self.eventNamespace, name)
        return index >= 0 ? index : nil
    }
}

/// The compiled tables as plain pointers, copied into each validation run. Valid while the
/// owning ``CompiledCatalog`` lives.
struct CatalogTables: @unchecked Sendable {
    let symbols: RawSymbolTable
    let isTopLevel: UnsafeMutablePointer<Bool>
    let globalCheck: UnsafeMutablePointer<Int32>
    let checks: UnsafeMutablePointer<PropertyCheck>
    /// `eventRules[event * propertyCount + property]`: the check to run, or -1 (not allowed).
    let eventRules: UnsafeMutablePointer<Int32>
    let eventEnabled: UnsafeMutablePointer<Bool>
    /// Event `e`'s required property ids are `requiredIDs[requiredOffsets[e] ..< requiredOffsets[e + 1]]`.
    let requiredOffsets: UnsafeMutablePointer<Int32>
    let requiredIDs: UnsafeMutablePointer<Int32>
    let requiredTopLevel: UnsafeMutablePointer<Int32>
    let requiredTopLevelCount: Int
    let propertyCount: Int
    /// The id `properties` resolves to (one past the last property).
    let propertiesKeyID: Int
    let eventNameID: Int
    let optInID: Int
    let maxScanDepth: Int
    /// Property names (and `properties`) by id: `nameBytes[nameOffsets[id] ..< nameOffsets[id + 1]]`.
    let nameBytes: UnsafeMutablePointer<UInt8>
    let nameOffsets: UnsafeMutablePointer<Int32>
    /// The bit of each top-level property (0 for the others), and the bits of the required ones.
    let topLevelBit: UnsafeMutablePointer<UInt64>
    let requiredTopMask: UInt64
    /// Words per property-id bitset, and each event's required properties as one.
    let bitWords: Int
    let eventRequiredBits: UnsafeMutablePointer<UInt64>
    let eventCount: Int
    let checkCount: Int

    /// If the input at `start` holds property `id`'s name followed by a closing quote, the name's
    /// length; otherwise nil.
    @inline(__always)
    func nameAt(_ id: Int, _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        let offset = Int(nameOffsets[id])
        let lengthWithQuote = Int(nameOffsets[id + 1]) - offset
        // Reading 8 bytes from `start` is safe when the comparison needs them: the name and its
        // quote fit before `end`, and names of 7 bytes or more are compared in place.
        guard start + lengthWithQuote <= end,
              bytesEqual(UnsafeRawPointer(p + start), UnsafeRawPointer(nameBytes + offset), lengthWithQuote) else { return nil }
        return lengthWithQuote - 1
    }
}

/// One precompiled value check: plain values only, so reading it costs a load.
struct PropertyCheck {
    let type: PropertyType
    let format: StringFormat?
    /// The symbol namespace of the closed set, or -1.
    let enumNamespace: Int32
    let minimum: Int64
    let maximum: Int64
    let isEnabled: Bool
}

/// Names for messages about a check.
struct CheckInfo: Sendable {
    let name: String
    let eventName: String?
    let enumCount: Int
    let type: PropertyType
    let format: StringFormat?
    let minimum: Int64
    let maximum: Int64

    /// What a valid value looks like. Never contains an input value.
    var expectation: String {
        switch type {
        case .boolean: return "a boolean"
        case .integer:
            if minimum == .min && maximum == .max { return "an integer" }
            return "an integer in \(minimum)...\(maximum)"
        case .string:
            if let format { return format.summary }
            return "one of the \(enumCount) catalogued values"
        }
    }
}

private struct CheckBuilder {
    var checks: [PropertyCheck] = []
    var info: [CheckInfo] = []
    var enumSets: [[String]] = []

    mutating func add(_ definition: PropertyDefinition, eventName: String?) -> Int {
        var namespace: Int32 = -1
        if let values = definition.allowedValues {
            namespace = Int32(CompiledCatalog.firstEnumNamespace + enumSets.count)
            enumSets.append(Array(Set(values)))
        }
        let minimum = definition.minimum ?? .min
        let maximum = definition.maximum ?? .max
        checks.append(PropertyCheck(type: definition.type, format: definition.format, enumNamespace: namespace,
                                    minimum: minimum, maximum: maximum, isEnabled: definition.isEnabled))
        info.append(CheckInfo(name: definition.name, eventName: eventName, enumCount: definition.allowedValues?.count ?? 0,
                              type: definition.type, format: definition.format, minimum: minimum, maximum: maximum))
        return checks.count - 1
    }
}

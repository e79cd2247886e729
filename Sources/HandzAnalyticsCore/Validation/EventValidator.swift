/// Validates one event — the bytes of one JSON object — against the compiled catalog, and lists
/// every violation with a stable code, a JSON-pointer path and a message that never contains the
/// offending value (CH33 §8.1).
///
/// Wire shape: the envelope (the §3.2 globals, `event_id`, `user_id`) at the top level, event
/// properties inside a `properties` object:
///
///     {"event_name": "app_open", "event_time_utc": "2026-03-01T12:00:00Z", …,
///      "properties": {"start_type": "cold", "launch_source": "direct"}}
///
/// The validator parses and validates in one pass over the bytes, with no per-event allocation on
/// the accepting path: the catalog is compiled into byte tables, recognised fields are recorded
/// as spans in a reused table, and strings are only decoded when they contain escapes.
/// Keep one validator per thread (it is a value; copies are independent).
public struct EventValidator: Sendable {
    public let catalog: CompiledCatalog
    private var storage: ValidatorStorage

    public init(catalog: CompiledCatalog) {
        self.catalog = catalog
        storage = ValidatorStorage(tables: catalog.tables)
    }

    public mutating func validate(_ bytes: [UInt8]) -> Verdict {
        bytes.withUnsafeBytes { validate($0) }
    }

    public mutating func validate(_ text: String) -> Verdict {
        var text = text
        return text.withUTF8 { validate(UnsafeRawBufferPointer($0)) }
    }

    /// Validates the bytes of one event.
    public mutating func validate(_ buffer: UnsafeRawBufferPointer) -> Verdict {
        let limits = catalog.limits
        guard buffer.count <= limits.maxEventBytes else {
            return Verdict(issues: [ValidationIssue(code: .tooLarge, path: "", message: "event is larger than \(limits.maxEventBytes) bytes")])
        }
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            return Verdict(issues: [ValidationIssue(code: .malformedJSON, path: "", message: "empty input is not JSON")])
        }
        // Copy on write: a copied validator gets its own scratch tables on first use.
        if !isKnownUniquelyReferenced(&storage) { storage = ValidatorStorage(tables: catalog.tables) }
        storage.nextGeneration()
        var run = ValidationRun(catalog: catalog, bytes: base.assumingMemoryBound(to: UInt8.self), count: buffer.count, storage: storage)
        return run.run()
    }

    /// The span of a property in the event validated last, if it was present.
    public func span(of propertyID: Int) -> FieldSpan? {
        let span = storage.spans[propertyID]
        return span.generation == storage.generation ? span : nil
    }

    /// The byte range of the `properties` object in the event validated last.
    public var propertiesRange: Range<Int>? {
        storage.propertiesGeneration == storage.generation ? storage.propertiesRange : nil
    }

    /// Calls `body` with a string property's bytes in the event validated last (`event` must be
    /// the same bytes), decoding escapes when there are any. `body` gets nil when absent or not a string.
    public func withString<R>(_ propertyID: Int, in event: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        guard let span = span(of: propertyID), span.kind == .string, let base = event.baseAddress else { return try body(nil) }
        if !span.isEscaped {
            return try body(UnsafeRawBufferPointer(start: base + Int(span.start), count: Int(span.length)))
        }
        var decoded: [UInt8] = []
        JSONScanner(base.assumingMemoryBound(to: UInt8.self), event.count).decodeString(start: Int(span.start), length: Int(span.length), into: &decoded)
        return try decoded.withUnsafeBytes { try body($0) }
    }
}

extension EventValidator {
    /// Like ``withString(_:in:_:)``, and for a number the literal as written (`418`): the text the
    /// store keeps for a property whose format has an integer form (`build_number`).
    public func withText<R>(_ propertyID: Int, in event: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        if let span = span(of: propertyID), span.kind == .number, let base = event.baseAddress {
            return try body(UnsafeRawBufferPointer(start: base + Int(span.start), count: Int(span.length)))
        }
        return try withString(propertyID, in: event, body)
    }
}

/// The validator's reusable scratch memory: one span per property id, stamped with a generation
/// so it never needs clearing, plus the lists of ids seen in the current event.
final class ValidatorStorage: @unchecked Sendable {
    let spans: UnsafeMutablePointer<FieldSpan>
    let seenTop: UnsafeMutablePointer<Int32>
    let seenProperties: UnsafeMutablePointer<Int32>
    let count: Int
    private(set) var generation: UInt32 = 0
    /// Decoded escaped strings (slow path only).
    var scratch: [UInt8] = []
    /// Unknown keys of the object being parsed, for duplicate detection (slow path only).
    var unknownKeys: [[UInt8]] = []
    /// Where the `properties` object of the event lies: start, end, and the generation it belongs
    /// to (a pointer, so the hot path writes it without exclusivity bookkeeping).
    let propertiesLocation: UnsafeMutablePointer<Int>
    var propertiesRange: Range<Int> { propertiesLocation[0]..<propertiesLocation[1] }
    var propertiesGeneration: UInt32 { UInt32(truncatingIfNeeded: propertiesLocation[2]) }

    /// Key prediction: the key id that followed each key id last time — in the root object, and in
    /// `properties` per event (row `eventCount` when the event is not known yet). Column
    /// `propertyCount + 1` holds the first key. Clients write keys in a fixed order, so most keys
    /// are confirmed by one comparison instead of a hash lookup, and an optional key (`user_id`)
    /// costs one miss, not a miss for every key after it. Prediction only saves time: a wrong
    /// guess falls back to the lookup.
    let rootPrediction: UnsafeMutablePointer<Int32>
    let propertyPrediction: UnsafeMutablePointer<Int32>
    let predictionRow: Int
    /// Value prediction: for each check with a closed set (or the time zone list), the symbol entry
    /// its value matched last time — confirmed by one comparison instead of a hash lookup.
    let valuePrediction: UnsafeMutablePointer<Int32>
    let checkCount: Int
    /// Which property ids were seen inside `properties` in the current event.
    let seenBits: UnsafeMutablePointer<UInt64>
    let bitWords: Int
    private let predictionCount: Int

    init(tables: CatalogTables) {
        count = tables.propertyCount
        spans = .allocate(capacity: max(count, 1))
        spans.initialize(repeating: FieldSpan(), count: max(count, 1))
        seenTop = .allocate(capacity: max(count, 1))
        seenProperties = .allocate(capacity: max(count, 1))
        predictionRow = tables.propertyCount + 2
        rootPrediction = .allocate(capacity: predictionRow)
        rootPrediction.initialize(repeating: -1, count: predictionRow)
        predictionCount = (tables.eventCount + 1) * predictionRow
        propertyPrediction = .allocate(capacity: predictionCount)
        propertyPrediction.initialize(repeating: -1, count: predictionCount)
        checkCount = max(tables.checkCount, 1)
        valuePrediction = .allocate(capacity: checkCount)
        valuePrediction.initialize(repeating: -1, count: checkCount)
        bitWords = max(tables.bitWords, 1)
        seenBits = .allocate(capacity: bitWords)
        seenBits.initialize(repeating: 0, count: bitWords)
        propertiesLocation = .allocate(capacity: 3)
        propertiesLocation.initialize(repeating: 0, count: 3)
    }

    deinit {
        spans.deallocate()
        seenTop.deallocate()
        seenProperties.deallocate()
        rootPrediction.deallocate()
        propertyPrediction.deallocate()
        valuePrediction.deallocate()
        seenBits.deallocate()
        propertiesLocation.deallocate()
    }

    func nextGeneration() {
        generation &+= 1
        if generation == 0 {
            for i in 0..<max(count, 1) { spans[i].generation = 0 }
            generation = 1
        }
    }
}

/// One validation pass over one event's bytes.
struct ValidationRun {
    let catalog: CompiledCatalog
    let tables: CatalogTables
    unowned(unsafe) let storage: ValidatorStorage
    var scanner: JSONScanner
    let spans: UnsafeMutablePointer<FieldSpan>
    let seenTop: UnsafeMutablePointer<Int32>
    let seenProperties: UnsafeMutablePointer<Int32>
    var topCount = 0
    var propertiesCount = 0
    let generation: UInt32
    var issues: IssueList
    var properties: PropertiesState = .absent
    /// Bits of the top-level properties seen so far.
    var seenTopMask: UInt64 = 0
    /// The event, once `event_name` has been read (-1 unknown or not yet read).
    var knownEvent = -1
    /// Whether `properties` values were checked while parsing (the event was already known);
    /// otherwise they are checked after parsing, once `event_name` is resolved.
    var propertiesCheckedInline = false
    /// Whether `storage.unknownKeys` holds anything to clear (kept off the hot path).
    var hasUnknownKeys = false

    enum PropertiesState { case absent, object, wrongType(JSONKind) }

    init(catalog: CompiledCatalog, bytes: UnsafePointer<UInt8>, count: Int, storage: ValidatorStorage) {
        self.catalog = catalog
        self.tables = catalog.tables
        self.storage = storage
        self.scanner = JSONScanner(bytes, count)
        self.spans = storage.spans
        self.seenTop = storage.seenTop
        self.seenProperties = storage.seenProperties
        self.generation = storage.generation
        self.issues = IssueList(limit: catalog.limits.maxIssuesPerEvent)
        for w in 0..<storage.bitWords { storage.seenBits[w] = 0 }
    }

    var maxDepth: Int { tables.maxScanDepth }

    mutating func run() -> Verdict {
        do {
            scanner.skipWhitespace()
            guard !scanner.atEnd else { throw ScanFailure.malformed }
            if scanner.peek != UInt8(ascii: "{") {
                _ = try scanner.skipValue(depth: 1, maxDepth: maxDepth) { _, _, _ in }
                scanner.skipWhitespace()
                guard scanner.atEnd else { throw ScanFailure.malformed }
                return Verdict(issues: [ValidationIssue(code: .notAnObject, path: "", message: "an event must be a JSON object")])
            }
            try parseObject(inProperties: false)
            scanner.skipWhitespace()
            guard scanner.atEnd else { throw ScanFailure.malformed }
        } catch ScanFailure.malformed {
            return Verdict(issues: [ValidationIssue(code: .malformedJSON, path: "", message: "not valid JSON (RFC 8259, UTF-8)")])
        } catch {
            return Verdict(issues: [ValidationIssue(code: .tooLarge, path: "", message: "nested deeper than \(maxDepth) levels")])
        }
        let eventIndex = checkFields()
        let name = eventIndex >= 0 ? catalog.eventNames[eventIndex] : nil
        return Verdict(issues: issues.issues, eventName: name, isTruncated: issues.truncated)
    }

    // MARK: Structure

    /// Parses the root object (`inProperties == false`) or the `properties` object, recording
    /// the spans of recognised keys and reporting keys that do not belong.
    mutating func parseObject(inProperties: Bool) throws(ScanFailure) {
        let valueDepth = inProperties ? 3 : 2
        scanner.pos += 1
        scanner.skipWhitespace()
        if scanner.peek == UInt8(ascii: "}") {
            scanner.pos += 1
            return
        }
        if hasUnknownKeys { storage.unknownKeys.removeAll() }
        var previous = tables.propertyCount + 1
        let predictions = inProperties
            ? storage.propertyPrediction + (knownEvent >= 0 ? knownEvent : tables.eventCount) * storage.predictionRow
            : storage.rootPrediction
        while true {
            guard scanner.peek == UInt8(ascii: "\"") else { throw .malformed }
            // Fast path: the key predicted from the previous one, compared in place — its bytes
            // and the closing quote — so the key is neither scanned nor hashed.
            let guess = Int(predictions[previous])
            let key: (start: Int, length: Int, escaped: Bool)
            let id: Int
            if guess >= 0, let length = tables.nameAt(guess, scanner.p, scanner.pos + 1, scanner.n) {
                key = (scanner.pos + 1, length, false)
                scanner.pos += length + 2
                id = guess
            } else {
                key = try scanner.scanString()
                id = resolve(key)
                if id >= 0 { predictions[previous] = Int32(id) }
            }
            scanner.skipWhitespace()
            try scanner.expect(UInt8(ascii: ":"))
            scanner.skipWhitespace()
            previous = id >= 0 ? id : tables.propertyCount + 1
            if !inProperties && id == tables.propertiesKeyID {
                if case .absent = properties {
                    if scanner.peek == UInt8(ascii: "{") {
                        properties = .object
                        let rootUnknownKeys = hasUnknownKeys ? storage.unknownKeys : []
                        let objectStart = scanner.pos
                        try parseObject(inProperties: true)
                        if hasUnknownKeys { storage.unknownKeys = rootUnknownKeys }
                        storage.propertiesLocation[0] = objectStart
                        storage.propertiesLocation[1] = scanner.pos
                        storage.propertiesLocation[2] = Int(generation)
                    } else {
                        properties = .wrongType(try skipScanningForPII(depth: valueDepth, path: .literal("/properties")))
                    }
                } else {
                    issues.add(.duplicateKey, "/properties", "key appears more than once")
                    _ = try skipScanningForPII(depth: valueDepth, path: .literal("/properties"))
                }
            } else if id >= 0 && id < tables.propertiesKeyID && tables.isTopLevel[id] != inProperties {
                if spans[id].generation == generation {
                    issues.add(.duplicateKey, path(id, inProperties: inProperties), "key appears more than once")
                    _ = try skipScanningForPII(depth: valueDepth, path: .property(id, inProperties: inProperties))
                } else {
                    // The check this value will face, when already known: lets common values be
                    // verified in place while they are read (`verifiedString`).
                    let expected = inProperties
                        ? (propertiesCheckedInline ? Int(tables.eventRules[knownEvent &* tables.propertyCount &+ id]) : -1)
                        : (id == tables.eventNameID ? -1 : Int(tables.globalCheck[id]))
                    try recordValue(id, depth: valueDepth, inProperties: inProperties, expected: expected)
                    if inProperties {
                        seenProperties[propertiesCount] = Int32(id)
                        propertiesCount += 1
                        storage.seenBits[id >> 6] |= 1 << UInt64(id & 63)
                        if propertiesCheckedInline { checkEventProperty(id, eventIndex: knownEvent) }
                    } else {
                        seenTop[topCount] = Int32(id)
                        topCount += 1
                        seenTopMask |= tables.topLevelBit[id]
                        if id == tables.eventNameID {
                            knownEvent = resolveEvent(spans[id])
                        } else {
                            checkValue(id, check: Int(tables.globalCheck[id]), inProperties: false)
                        }
                    }
                }
            } else {
                let path = reportUnknownKey(key, knownID: id, inProperties: inProperties)
                _ = try skipScanningForPII(depth: valueDepth, path: .literal(path))
            }
            scanner.skipWhitespace()
            let b = scanner.peek
            if b == UInt8(ascii: ",") {
                scanner.pos += 1
                scanner.skipWhitespace()
            } else if b == UInt8(ascii: "}") {
                scanner.pos += 1
                return
            } else {
                throw .malformed
            }
        }
    }

    /// The property id a key names (or `propertiesKeyID`), -1 when unknown.
    @inline(never)
    mutating func resolve(_ key: (start: Int, length: Int, escaped: Bool)) -> Int {
        let symbols = tables.symbols
        if !key.escaped { return symbols.lookup(CompiledCatalog.propertyNamespace, UnsafeRawPointer(scanner.p + key.start), key.length) }
        scanner.decodeString(start: key.start, length: key.length, into: &storage.scratch)
        let fallback = UnsafeRawPointer(scanner.p)
        return storage.scratch.withUnsafeBytes { symbols.lookup(CompiledCatalog.propertyNamespace, $0.baseAddress ?? fallback, $0.count) }
    }

    /// Records the span of a recognised key's value.
    @inline(__always)
    mutating func recordValue(_ id: Int, depth: Int, inProperties: Bool, expected: Int) throws(ScanFailure) {
        var span = FieldSpan()
        span.generation = generation
        let start = scanner.pos
        switch scanner.peek {
        case UInt8(ascii: "\""):
            if expected >= 0, let length = verifiedString(expected) {
                span.kind = .string
                span.isVerified = true
                span.start = Int32(start + 1)
                span.length = Int32(length)
                scanner.pos = start + length + 2
                break
            }
            let s = try scanner.scanString()
            span.kind = .string
            span.isEscaped = s.escaped
            span.start = Int32(s.start)
            span.length = Int32(s.length)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let token = try scanner.scanNumber()
            span.kind = .number
            span.isInteger = token.isIntegerLiteral
            span.isOverflow = token.overflow
            span.integerValue = token.value
            span.start = Int32(start)
            span.length = Int32(scanner.pos - start)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            span.kind = try scanner.scanLiteral()
            span.start = Int32(start)
            span.length = Int32(scanner.pos - start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            span.kind = try skipScanningForPII(depth: depth, path: .property(id, inProperties: inProperties))
            span.start = Int32(start)
            span.length = Int32(scanner.pos - start)
        default:
            throw .malformed
        }
        spans[id] = span
    }

    /// Reads a string value in place when it is one the check accepts without further work — a
    /// UUID, or the closed-set value this check matched last time — followed by its closing quote.
    /// Such bytes contain no escape, control or non-ASCII byte, so they are a complete, valid JSON
    /// string and need no separate scan. Returns the content length, or nil to take the general path.
    @inline(__always)
    func verifiedString(_ checkIndex: Int) -> Int? {
        let check = tables.checks[checkIndex]
        guard check.isEnabled else { return nil }
        let contentStart = scanner.pos + 1
        let p = scanner.p
        if check.format == .uuid {
            guard contentStart + 36 < scanner.n, p[contentStart + 36] == UInt8(ascii: "\""),
                  UUIDFormat.matches(UnsafeRawPointer(p + contentStart), 36) else { return nil }
            return 36
        }
        if check.enumNamespace >= 0 {
            let guess = Int(storage.valuePrediction[checkIndex])
            guard guess >= 0 else { return nil }
            let symbols = tables.symbols
            let offset = Int(symbols.offsets[guess])
            let length = Int(symbols.offsets[guess + 1]) - offset
            guard contentStart + length < scanner.n, p[contentStart + length] == UInt8(ascii: "\""),
                  bytesEqual(UnsafeRawPointer(p + contentStart), UnsafeRawPointer(symbols.bytes + offset), length) else { return nil }
            return length
        }
        return nil
    }

    /// Skips a value that is rejected anyway, scanning every string inside it for PII.
    @inline(never)
    mutating func skipScanningForPII(depth: Int, path: PathReference) throws(ScanFailure) -> JSONKind {
        var found: PIIKind?
        var decoded: [UInt8] = []
        let scanner = self.scanner
        let kind = try self.scanner.skipValue(depth: depth, maxDepth: maxDepth) { start, length, escaped in
            guard found == nil else { return }
            if escaped {
                scanner.decodeString(start: start, length: length, into: &decoded)
                found = decoded.withUnsafeBytes { PIIValueScanner.scan($0.baseAddress ?? UnsafeRawPointer(scanner.p), $0.count) }
            } else {
                found = PIIValueScanner.scan(UnsafeRawPointer(scanner.p + start), length)
            }
        }
        if let found { issues.add(.piiValue, resolve(path), "value looks like \(Self.article(found)) \(found.rawValue); it was not stored") }
        return kind
    }

    static func article(_ kind: PIIKind) -> String {
        kind == .emailAddress || kind == .ipAddress ? "an" : "a"
    }

    /// Reports a key that does not belong where it is; returns the (possibly redacted) path.
    @inline(never)
    mutating func reportUnknownKey(_ key: (start: Int, length: Int, escaped: Bool), knownID: Int, inProperties: Bool) -> String {
        var keyBytes: [UInt8] = []
        if key.escaped {
            scanner.decodeString(start: key.start, length: key.length, into: &keyBytes)
        } else {
            keyBytes.append(contentsOf: UnsafeBufferPointer(start: scanner.p + key.start, count: key.length))
        }
        let text = String(decoding: keyBytes, as: UTF8.self)
        let segment = Self.safeSegment(text)
        let path = (inProperties ? "/properties/" : "/") + segment
        hasUnknownKeys = true
        if storage.unknownKeys.count < 256 {
            if storage.unknownKeys.contains(keyBytes) {
                issues.add(.duplicateKey, path, "key appears more than once")
                return path
            }
            storage.unknownKeys.append(keyBytes)
        }
        if knownID >= 0 && knownID < tables.propertiesKeyID {
            let place = tables.isTopLevel[knownID] ? "at the top level of the event" : "inside /properties"
            issues.add(.unknownProperty, path, "catalogued property belongs \(place)")
        } else if knownID == tables.propertiesKeyID {
            issues.add(.unknownProperty, path, "`properties` belongs at the top level of the event")
        } else {
            issues.add(.unknownProperty, path, "key is not in the catalog; unreviewed keys may carry PII")
        }
        switch catalog.keyLint.check(text) {
        case .denied(let token): issues.add(.piiKey, path, "key contains the PII token '\(token)'")
        case .valueLike(let kind): issues.add(.piiKey, path, "key looks like \(Self.article(kind)) \(kind.rawValue)")
        case .clean, .reviewed: break
        }
        return path
    }

    /// A key is echoed in a path only when it is a plain snake_case identifier that the PII value
    /// scan does not flag; anything else is redacted as `*`.
    static func safeSegment(_ key: String) -> String {
        guard key.utf8.count <= 64, isSnakeCase(key), PIIValueScanner.scan(key) == nil else { return "*" }
        return key
    }

    /// The catalogued event an unescaped `event_name` string names, or -1 (escaped names and
    /// non-strings are resolved after parsing, in `checkEventName`).
    func resolveEvent(_ span: FieldSpan) -> Int {
        guard span.kind == .string, !span.isEscaped else { return -1 }
        return tables.symbols.lookup(CompiledCatalog.eventNamespace, UnsafeRawPointer(scanner.p + Int(span.start)), Int(span.length))
    }

    /// A path computed only when an issue is reported.
    enum PathReference {
        case property(Int, inProperties: Bool)
        case literal(String)
    }

    func resolve(_ reference: PathReference) -> String {
        switch reference {
        case .property(let id, let inProperties): path(id, inProperties: inProperties)
        case .literal(let path): path
        }
    }

    func path(_ id: Int, inProperties: Bool) -> String {
        (inProperties ? "/properties/" : "/") + catalog.propertyName(id)
    }
}

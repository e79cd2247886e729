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
    private var spans: [FieldSpan]
    private var seenTop: [Int32]
    private var seenProperties: [Int32]
    private var scratch: [UInt8] = []
    private var generation: UInt32 = 0

    public init(catalog: CompiledCatalog) {
        self.catalog = catalog
        spans = [FieldSpan](repeating: FieldSpan(), count: catalog.propertyCount)
        seenTop = [Int32](repeating: 0, count: catalog.propertyCount)
        seenProperties = [Int32](repeating: 0, count: catalog.propertyCount)
        scratch.reserveCapacity(256)
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
        generation &+= 1
        if generation == 0 {
            for i in spans.indices { spans[i].generation = 0 }
            generation = 1
        }
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            return Verdict(issues: [ValidationIssue(code: .malformedJSON, path: "", message: "empty input is not JSON")])
        }
        // Move the scratch tables out of `self` for the run, and back afterwards.
        var run = ValidationRun(
            catalog: catalog, bytes: base.assumingMemoryBound(to: UInt8.self), count: buffer.count,
            spans: spans, seenTop: seenTop, seenProperties: seenProperties, scratch: scratch, generation: generation
        )
        spans = []; seenTop = []; seenProperties = []; scratch = []
        let verdict = run.run()
        spans = run.spans; seenTop = run.seenTop; seenProperties = run.seenProperties; scratch = run.scratch
        return verdict
    }

    /// The span of a property in the event validated last, if it was present.
    public func span(of propertyID: Int) -> FieldSpan? {
        let span = spans[propertyID]
        return span.generation == generation ? span : nil
    }
}

/// One validation pass over one event's bytes.
struct ValidationRun {
    let catalog: CompiledCatalog
    var scanner: JSONScanner
    var spans: [FieldSpan]
    var seenTop: [Int32]
    var seenProperties: [Int32]
    var topCount = 0
    var propertiesCount = 0
    var scratch: [UInt8]
    let generation: UInt32
    var issues: IssueList
    var properties: PropertiesState = .absent
    var unknownKeys: [[UInt8]] = []

    enum PropertiesState { case absent, object, wrongType(JSONKind) }

    init(catalog: CompiledCatalog, bytes: UnsafePointer<UInt8>, count: Int, spans: [FieldSpan], seenTop: [Int32],
         seenProperties: [Int32], scratch: [UInt8], generation: UInt32) {
        self.catalog = catalog
        self.scanner = JSONScanner(bytes, count)
        self.spans = spans
        self.seenTop = seenTop
        self.seenProperties = seenProperties
        self.scratch = scratch
        self.generation = generation
        self.issues = IssueList(limit: catalog.limits.maxIssuesPerEvent)
    }

    var maxDepth: Int { catalog.limits.maxScanDepth }

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
        let name = eventIndex >= 0 ? catalog.catalog.events[eventIndex].name : nil
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
        unknownKeys.removeAll()
        while true {
            guard scanner.peek == UInt8(ascii: "\"") else { throw .malformed }
            let key = try scanner.scanString()
            scanner.skipWhitespace()
            try scanner.expect(UInt8(ascii: ":"))
            scanner.skipWhitespace()
            let id = resolve(key)
            if !inProperties && id == catalog.propertiesKeyID {
                if case .absent = properties {
                    if scanner.peek == UInt8(ascii: "{") {
                        properties = .object
                        let rootUnknownKeys = unknownKeys
                        try parseObject(inProperties: true)
                        unknownKeys = rootUnknownKeys
                    } else {
                        properties = .wrongType(try skipScanningForPII(depth: valueDepth, path: .literal("/properties")))
                    }
                } else {
                    issues.add(.duplicateKey, "/properties", "key appears more than once")
                    _ = try skipScanningForPII(depth: valueDepth, path: .literal("/properties"))
                }
            } else if id >= 0 && id < catalog.propertiesKeyID && catalog.isTopLevel[id] != inProperties {
                if spans[id].generation == generation {
                    issues.add(.duplicateKey, path(id, inProperties: inProperties), "key appears more than once")
                    _ = try skipScanningForPII(depth: valueDepth, path: .property(id, inProperties: inProperties))
                } else {
                    try recordValue(id, depth: valueDepth, inProperties: inProperties)
                    if inProperties { seenProperties[propertiesCount] = Int32(id); propertiesCount += 1 } else { seenTop[topCount] = Int32(id); topCount += 1 }
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
    mutating func resolve(_ key: (start: Int, length: Int, escaped: Bool)) -> Int {
        if !key.escaped { return catalog.propertyID(UnsafeRawPointer(scanner.p + key.start), key.length) }
        scanner.decodeString(start: key.start, length: key.length, into: &scratch)
        let catalog = self.catalog
        let fallback = UnsafeRawPointer(scanner.p)
        return scratch.withUnsafeBytes { catalog.propertyID($0.baseAddress ?? fallback, $0.count) }
    }

    /// Records the span of a recognised key's value.
    @inline(__always)
    mutating func recordValue(_ id: Int, depth: Int, inProperties: Bool) throws(ScanFailure) {
        var span = FieldSpan()
        span.generation = generation
        let start = scanner.pos
        switch scanner.peek {
        case UInt8(ascii: "\""):
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

    /// Skips a value that is rejected anyway, scanning every string inside it for PII.
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
    mutating func reportUnknownKey(_ key: (start: Int, length: Int, escaped: Bool), knownID: Int, inProperties: Bool) -> String {
        if key.escaped {
            scanner.decodeString(start: key.start, length: key.length, into: &scratch)
        } else {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: UnsafeBufferPointer(start: scanner.p + key.start, count: key.length))
        }
        let text = String(decoding: scratch, as: UTF8.self)
        let segment = Self.safeSegment(text)
        let path = (inProperties ? "/properties/" : "/") + segment
        if unknownKeys.count < 256 {
            if unknownKeys.contains(scratch) {
                issues.add(.duplicateKey, path, "key appears more than once")
                return path
            }
            unknownKeys.append(scratch)
        }
        if knownID >= 0 && knownID < catalog.propertiesKeyID {
            let place = catalog.isTopLevel[knownID] ? "at the top level of the event" : "inside /properties"
            issues.add(.unknownProperty, path, "catalogued property belongs \(place)")
        } else if knownID == catalog.propertiesKeyID {
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

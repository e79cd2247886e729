/// The body of one ingestion request: `{"sent_at": "<ISO-8601>", "catalog_version": "1.3.0",
/// "events": [ … ]}` (`sent_at` and `catalog_version` optional). Parsing finds each event's bytes without judging them — every element, object or
/// not, is then validated on its own and gets its own receipt.
public struct BatchEnvelope: Sendable {
    /// `sent_at` as seconds and nanoseconds since the epoch, when present.
    public var sentAt: (seconds: Int64, nanoseconds: Int32)?
    /// The byte range of each element of `events`, in order.
    public var events: [Range<Int>]
    /// The catalog the sending app was built with, when it says (docs/catalog-releases.md): its
    /// events are validated against that release. At most 32 bytes of plain text; never echoed.
    public var catalogVersion: String?

    public init(sentAt: (seconds: Int64, nanoseconds: Int32)?, events: [Range<Int>], catalogVersion: String? = nil) {
        self.sentAt = sentAt
        self.events = events
        self.catalogVersion = catalogVersion
    }
}

/// Why a body is not a batch envelope. Messages name the rule, never a value.
public enum BatchEnvelopeError: Error, Sendable, Equatable {
    /// Not a JSON object with an `events` array (and at most a valid `sent_at`).
    case malformed(String)
    /// More events than allowed.
    case tooManyEvents(limit: Int)

    public var message: String {
        switch self {
        case .malformed(let reason): "malformed batch: \(reason)"
        case .tooManyEvents(let limit): "a batch holds at most \(limit) events"
        }
    }
}

public enum BatchEnvelopeParser {
    /// Parses a batch body. Elements nested deeper than `maxDepth` make the whole body malformed
    /// (their end cannot be found without scanning them).
    public static func parse(_ buffer: UnsafeRawBufferPointer, maxEvents: Int, maxDepth: Int = 64) throws(BatchEnvelopeError) -> BatchEnvelope {
        guard let base = buffer.baseAddress, buffer.count > 0 else { throw .malformed("empty body") }
        var scanner = JSONScanner(base.assumingMemoryBound(to: UInt8.self), buffer.count)
        var envelope = BatchEnvelope(sentAt: nil, events: [])
        var sawEvents = false
        var sawSentAt = false
        var sawCatalogVersion = false
        do {
            scanner.skipWhitespace()
            guard scanner.peek == UInt8(ascii: "{") else { throw BatchEnvelopeError.malformed("expected a JSON object") }
            scanner.pos += 1
            scanner.skipWhitespace()
            if scanner.peek == UInt8(ascii: "}") { throw BatchEnvelopeError.malformed("missing events") }
            while true {
                guard scanner.peek == UInt8(ascii: "\"") else { throw BatchEnvelopeError.malformed("expected a key") }
                let key = try scanner.scanString()
                let name = key.escaped ? "" : String(decoding: UnsafeRawBufferPointer(start: scanner.p + key.start, count: key.length), as: UTF8.self)
                scanner.skipWhitespace()
                try scanner.expect(UInt8(ascii: ":"))
                scanner.skipWhitespace()
                switch name {
                case "events":
                    guard !sawEvents else { throw BatchEnvelopeError.malformed("duplicate key events") }
                    sawEvents = true
                    envelope.events = try parseEvents(&scanner, maxEvents: maxEvents, maxDepth: maxDepth)
                case "sent_at":
                    guard !sawSentAt else { throw BatchEnvelopeError.malformed("duplicate key sent_at") }
                    sawSentAt = true
                    guard scanner.peek == UInt8(ascii: "\"") else { throw BatchEnvelopeError.malformed("sent_at must be a string") }
                    let value = try scanner.scanString()
                    guard !value.escaped, let time = TimestampFormat.parse(UnsafeRawPointer(scanner.p + value.start), value.length) else {
                        throw BatchEnvelopeError.malformed("sent_at must be an ISO-8601 UTC date-time")
                    }
                    envelope.sentAt = time
                case "catalog_version":
                    guard !sawCatalogVersion else { throw BatchEnvelopeError.malformed("duplicate key catalog_version") }
                    sawCatalogVersion = true
                    guard scanner.peek == UInt8(ascii: "\"") else { throw BatchEnvelopeError.malformed("catalog_version must be a string") }
                    let value = try scanner.scanString()
                    // A version is a few digits and dots; anything longer or escaped is no version
                    // at all, and is kept out rather than carried further.
                    guard !value.escaped, value.length <= 32 else { throw BatchEnvelopeError.malformed("catalog_version must be MAJOR.MINOR.PATCH") }
                    envelope.catalogVersion = String(decoding: UnsafeRawBufferPointer(start: scanner.p + value.start, count: value.length), as: UTF8.self)
                default:
                    throw BatchEnvelopeError.malformed("unknown key (expected events, sent_at and catalog_version)")
                }
                scanner.skipWhitespace()
                if scanner.peek == UInt8(ascii: ",") {
                    scanner.pos += 1
                    scanner.skipWhitespace()
                } else if scanner.peek == UInt8(ascii: "}") {
                    scanner.pos += 1
                    break
                } else {
                    throw BatchEnvelopeError.malformed("expected , or }")
                }
            }
            scanner.skipWhitespace()
            guard scanner.atEnd else { throw BatchEnvelopeError.malformed("trailing bytes after the object") }
        } catch let error as BatchEnvelopeError {
            throw error
        } catch {
            throw .malformed("not valid JSON")
        }
        guard sawEvents else { throw .malformed("missing events") }
        return envelope
    }

    static func parseEvents(_ scanner: inout JSONScanner, maxEvents: Int, maxDepth: Int) throws -> [Range<Int>] {
        guard scanner.peek == UInt8(ascii: "[") else { throw BatchEnvelopeError.malformed("events must be an array") }
        scanner.pos += 1
        scanner.skipWhitespace()
        var ranges: [Range<Int>] = []
        if scanner.peek == UInt8(ascii: "]") {
            scanner.pos += 1
            return ranges
        }
        while true {
            let start = scanner.pos
            _ = try scanner.skipValue(depth: 2, maxDepth: maxDepth) { _, _, _ in }
            ranges.append(start..<scanner.pos)
            if ranges.count > maxEvents { throw BatchEnvelopeError.tooManyEvents(limit: maxEvents) }
            scanner.skipWhitespace()
            if scanner.peek == UInt8(ascii: ",") {
                scanner.pos += 1
                scanner.skipWhitespace()
            } else if scanner.peek == UInt8(ascii: "]") {
                scanner.pos += 1
                return ranges
            } else {
                throw BatchEnvelopeError.malformed("expected , or ]")
            }
        }
    }
}

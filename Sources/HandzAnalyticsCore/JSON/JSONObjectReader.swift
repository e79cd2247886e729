/// Reads one JSON object member by member, straight from bytes, for readers that want a few
/// scalars out of each event (the QA engine's NDJSON and stored-properties input) rather than
/// the validator's full pass. It is a thin cursor over `JSONScanner`, the one byte-level JSON
/// reader of the package: syntax, strict UTF-8 (RFC 3629), escapes and surrogate pairs are
/// checked by the same code the validator runs, so both read exactly the same language.
///
/// Strings are handed over as byte ranges into the input; a string with escapes is decoded into
/// a side buffer that lives until the next escaped string. Containers in a member's value are
/// skipped, nesting bounded by ``maxDepth`` (CH33 §3.2: events are flat, so nothing deeper is
/// expected). Nothing is kept that the caller did not take.
public struct JSONObjectReader {
    /// A scalar member value, or `.other` for a number that is not an integer literal (a
    /// fraction, an exponent, beyond Int64) and for a skipped container.
    public enum Value {
        case string(UnsafeRawBufferPointer)
        case integer(Int64)
        case bool(Bool)
        case null
        case other
    }

    /// The input is not one JSON object (RFC 8259), or nests deeper than ``maxDepth``.
    public struct Malformed: Error {}

    /// Container nesting a skipped value may open (the scanner's bit stack holds 64).
    public static let maxDepth = 64

    private var scanner: JSONScanner
    /// Decoded strings with escapes; each lives until the next string with escapes.
    private var scratch: [UInt8] = []

    /// Reads `bytes`, which must outlive the reader and every string it hands out.
    public init(_ bytes: UnsafeRawBufferPointer) {
        // An empty buffer may have no base address; any valid pointer with count 0 reads nothing.
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)!
        scanner = JSONScanner(base, bytes.count)
    }

    /// Opens the object at the cursor; pass the returned flag to ``nextKey(_:)`` until it is nil.
    public mutating func beginObject() throws(Malformed) -> Bool {
        try open(UInt8(ascii: "{"))
    }

    /// The next member's key (the cursor then sits before its value), or nil after the object's
    /// `}`. `first` is the flag ``beginObject()`` returned, kept by the caller per object.
    public mutating func nextKey(_ first: inout Bool) throws(Malformed) -> UnsafeRawBufferPointer? {
        guard try advance(&first, closing: UInt8(ascii: "}")) else { return nil }
        let key = try string()
        scanner.skipWhitespace()
        do { try scanner.expect(UInt8(ascii: ":")) } catch { throw Malformed() }
        scanner.skipWhitespace()
        guard !scanner.atEnd else { throw Malformed() }
        return key
    }

    /// Opens the array at the cursor; pass the returned flag to ``nextElement(_:)`` until it is false.
    public mutating func beginArray() throws(Malformed) -> Bool {
        try open(UInt8(ascii: "["))
    }

    /// Whether another element follows (the cursor then sits before it), false after the
    /// array's `]`. `first` is the flag ``beginArray()`` returned, kept by the caller per array.
    public mutating func nextElement(_ first: inout Bool) throws(Malformed) -> Bool {
        guard try advance(&first, closing: UInt8(ascii: "]")) else { return false }
        guard !scanner.atEnd else { throw Malformed() }
        return true
    }

    /// Steps past the container's opening `bracket`; true, the caller's `first` flag.
    private mutating func open(_ bracket: UInt8) throws(Malformed) -> Bool {
        scanner.skipWhitespace()
        guard scanner.peek == bracket else { throw Malformed() }
        scanner.pos += 1
        return true
    }

    /// Steps to the container's next entry: past its `closing` bracket (false), or past the
    /// comma before every entry but the first (true).
    private mutating func advance(_ first: inout Bool, closing: UInt8) throws(Malformed) -> Bool {
        scanner.skipWhitespace()
        guard !scanner.atEnd else { throw Malformed() }
        if scanner.peek == closing { scanner.pos += 1; return false }
        if !first {
            guard scanner.peek == UInt8(ascii: ",") else { throw Malformed() }
            scanner.pos += 1
            scanner.skipWhitespace()
        }
        first = false
        return true
    }

    /// Whether the value at the cursor is an object.
    public var atObject: Bool { scanner.peek == UInt8(ascii: "{") }

    /// After the outermost object: only whitespace may follow.
    public mutating func finish() throws(Malformed) {
        scanner.skipWhitespace()
        guard scanner.atEnd else { throw Malformed() }
    }

    /// The member value at the cursor.
    public mutating func value() throws(Malformed) -> Value {
        do {
            switch scanner.peek {
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let number = try scanner.scanNumber()
                return number.isIntegerLiteral && !number.overflow ? .integer(number.value) : .other
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                switch try scanner.scanLiteral() {
                case .boolTrue: return .bool(true)
                case .boolFalse: return .bool(false)
                default: return .null
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                try scanner.skipContainer(depth: 1, maxDepth: Self.maxDepth) { _, _, _ in }
                return .other
            default:
                throw Malformed()
            }
        } catch {
            throw Malformed()
        }
    }

    /// Skips the member value at the cursor, containers included. Checked like any value, but a
    /// skipped string's escapes are not decoded (most members are skipped).
    public mutating func skipValue() throws(Malformed) {
        guard scanner.peek == UInt8(ascii: "\"") else { _ = try value(); return }
        do { _ = try scanner.scanString() } catch { throw Malformed() }
    }

    /// The string at the cursor, escapes decoded.
    private mutating func string() throws(Malformed) -> UnsafeRawBufferPointer {
        guard scanner.peek == UInt8(ascii: "\"") else { throw Malformed() }
        let span: (start: Int, length: Int, escaped: Bool)
        do { span = try scanner.scanString() } catch { throw Malformed() }
        guard span.escaped else { return UnsafeRawBufferPointer(start: scanner.p + span.start, count: span.length) }
        scanner.decodeString(start: span.start, length: span.length, into: &scratch)
        return scratch.withUnsafeBytes { UnsafeRawBufferPointer(start: $0.baseAddress, count: $0.count) }
    }
}

/// Reads one JSON object of scalars (and skips nested containers) straight from bytes, for
/// the shape every Handz event has (CH33 §3.2: envelope scalars and one `properties` object).
/// Strings are handed over as byte ranges into the input (escapes decoded into a side buffer
/// only when present). Rejects what is not JSON; never keeps a value it was not asked for.
struct FlatJSONReader {
    enum Value {
        case string(UnsafeRawBufferPointer)
        case integer(Int64)
        case bool(Bool)
        case null
        /// A number that is not an integer literal, or a container (skipped).
        case other
    }

    struct Malformed: Error {}

    let p: UnsafeRawBufferPointer
    var pos = 0
    /// Decoded strings with escapes; each lives until the next string with escapes.
    var scratch: [UInt8] = []

    init(_ bytes: UnsafeRawBufferPointer) { p = bytes }

    @inline(__always) mutating func skipWhitespace() {
        while pos < p.count, p[pos] == 0x20 || p[pos] == 0x09 || p[pos] == 0x0A || p[pos] == 0x0D { pos += 1 }
    }

    @inline(__always) mutating func expect(_ byte: UInt8) throws(Malformed) {
        skipWhitespace()
        guard pos < p.count, p[pos] == byte else { throw Malformed() }
        pos += 1
    }

    /// Opens the object at the cursor; then `nextKey` until nil.
    mutating func beginObject() throws(Malformed) -> Bool {
        try expect(0x7B)
        return true
    }

    /// The next member's key (the cursor then sits before its value), or nil after the object's
    /// `}`. `first` is the flag `beginObject` returned, kept by the caller per object.
    mutating func nextKey(_ first: inout Bool) throws(Malformed) -> UnsafeRawBufferPointer? {
        skipWhitespace()
        guard pos < p.count else { throw Malformed() }
        if p[pos] == 0x7D { pos += 1; return nil }
        if !first {
            guard p[pos] == 0x2C else { throw Malformed() }
            pos += 1
            skipWhitespace()
        }
        first = false
        let key = try string()
        try expect(0x3A)
        skipWhitespace()
        guard pos < p.count else { throw Malformed() }
        return key
    }

    /// Whether the value at the cursor is an object.
    var atObject: Bool { pos < p.count && p[pos] == 0x7B }

    /// After the object: only whitespace may follow.
    mutating func finish() throws(Malformed) {
        skipWhitespace()
        guard pos == p.count else { throw Malformed() }
    }

    mutating func value() throws(Malformed) -> Value {
        switch p[pos] {
        case 0x22: return .string(try string())
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        case 0x7B, 0x5B: try skipValue(); return .other
        default: return try number()
        }
    }

    mutating func literal(_ word: StaticString) throws(Malformed) {
        let count = word.utf8CodeUnitCount
        guard pos + count <= p.count else { throw Malformed() }
        for offset in 0..<count where p[pos + offset] != word.utf8Start[offset] { throw Malformed() }
        pos += count
    }

    mutating func number() throws(Malformed) -> Value {
        var negative = false
        if pos < p.count, p[pos] == 0x2D { negative = true; pos += 1 }
        var magnitude: UInt64 = 0
        var digits = 0
        var overflow = false
        while pos < p.count, p[pos] >= 0x30, p[pos] <= 0x39 {
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(p[pos] - 0x30))
            overflow = overflow || o1 || o2
            magnitude = sum
            digits += 1
            pos += 1
        }
        guard digits > 0 else { throw Malformed() }
        var integral = true
        while pos < p.count, p[pos] == 0x2E || p[pos] == 0x65 || p[pos] == 0x45 || p[pos] == 0x2B || p[pos] == 0x2D || (p[pos] >= 0x30 && p[pos] <= 0x39) {
            integral = false
            pos += 1
        }
        guard integral, !overflow, magnitude <= UInt64(Int64.max) else { return .other }
        return .integer(negative ? -Int64(magnitude) : Int64(magnitude))
    }

    /// A string at the cursor; escapes are decoded into `scratch`.
    mutating func string() throws(Malformed) -> UnsafeRawBufferPointer {
        guard pos < p.count, p[pos] == 0x22 else { throw Malformed() }
        pos += 1
        let start = pos
        while pos < p.count {
            let byte = p[pos]
            if byte == 0x22 { pos += 1; return UnsafeRawBufferPointer(rebasing: p[start..<(pos - 1)]) }
            if byte == 0x5C { return try escapedString(from: start) }
            if byte < 0x20 { throw Malformed() }
            pos += 1
        }
        throw Malformed()
    }

    mutating func escapedString(from start: Int) throws(Malformed) -> UnsafeRawBufferPointer {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: p[start..<pos])
        while pos < p.count {
            let byte = p[pos]
            pos += 1
            if byte == 0x22 {
                return scratch.withUnsafeBytes { UnsafeRawBufferPointer(start: $0.baseAddress, count: $0.count) }
            }
            guard byte == 0x5C else { scratch.append(byte); continue }
            guard pos < p.count else { throw Malformed() }
            let escape = p[pos]
            pos += 1
            switch escape {
            case 0x22, 0x5C, 0x2F: scratch.append(escape)
            case 0x62: scratch.append(0x08)
            case 0x66: scratch.append(0x0C)
            case 0x6E: scratch.append(0x0A)
            case 0x72: scratch.append(0x0D)
            case 0x74: scratch.append(0x09)
            case 0x75:
                guard pos + 4 <= p.count, let unit = UInt32(String(decoding: p[pos..<(pos + 4)], as: UTF8.self), radix: 16) else { throw Malformed() }
                pos += 4
                // Identifiers and closed-set values are ASCII; anything else only needs to stay
                // distinct, so a lone or paired surrogate is kept as its code units.
                scratch.append(contentsOf: String(decoding: [UInt16(unit)], as: UTF16.self).utf8)
            default: throw Malformed()
            }
        }
        throw Malformed()
    }

    /// Skips any value (containers included), string-aware.
    mutating func skipValue() throws(Malformed) {
        skipWhitespace()
        guard pos < p.count else { throw Malformed() }
        switch p[pos] {
        case 0x7B, 0x5B:
            var depth = 0
            while pos < p.count {
                let byte = p[pos]
                if byte == 0x22 { _ = try string(); continue }
                if byte == 0x7B || byte == 0x5B { depth += 1 }
                if byte == 0x7D || byte == 0x5D {
                    depth -= 1
                    if depth == 0 { pos += 1; return }
                }
                pos += 1
            }
            throw Malformed()
        default:
            _ = try value()
        }
    }
}

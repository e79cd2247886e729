/// Why scanning stopped before the end of the input.
enum ScanFailure: Error {
    /// Not JSON (RFC 8259): bad syntax, invalid UTF-8, a control character or bad escape in a string.
    case malformed
    /// Containers nested beyond the catalog's scan depth.
    case tooDeep
}

/// The JSON kind of a scanned value.
public enum JSONKind: UInt8, Sendable {
    case string, number, boolTrue, boolFalse, null, object, array

    var name: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .boolTrue, .boolFalse: "a boolean"
        case .null: "null"
        case .object: "an object"
        case .array: "an array"
        }
    }
}

/// A number token's integer reading.
struct NumberToken {
    /// Written as an integer: no fraction, no exponent.
    var isIntegerLiteral: Bool
    /// Did not fit in Int64.
    var overflow: Bool
    var value: Int64
}

/// A byte-level RFC 8259 scanner that validates as it goes (syntax, strict UTF-8, escapes and
/// surrogate pairs) without building values. Plain ASCII string content is skipped eight bytes at
/// a time.
struct JSONScanner {
    let p: UnsafePointer<UInt8>
    let n: Int
    var pos: Int = 0

    init(_ p: UnsafePointer<UInt8>, _ n: Int) {
        self.p = p
        self.n = n
    }

    @inline(__always) var atEnd: Bool { pos >= n }
    @inline(__always) var peek: UInt8 { pos < n ? p[pos] : 0 }

    @inline(__always) mutating func skipWhitespace() {
        while pos < n {
            let b = p[pos]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { pos += 1 } else { return }
        }
    }

    @inline(__always) mutating func expect(_ byte: UInt8) throws(ScanFailure) {
        guard pos < n, p[pos] == byte else { throw .malformed }
        pos += 1
    }

    // MARK: Strings

    /// Scans a string starting at its opening quote. Returns the content span (without quotes)
    /// and whether it contains escapes.
    @inline(__always)
    mutating func scanString() throws(ScanFailure) -> (start: Int, length: Int, escaped: Bool) {
        pos += 1
        let start = pos
        var escaped = false
        let raw = UnsafeRawPointer(p)
        while true {
            // Eight bytes at a time; the lowest flagged byte is exact, so jump straight to it.
            while pos + 8 <= n {
                let bits = Self.specialBits(raw.loadUnaligned(fromByteOffset: pos, as: UInt64.self))
                if bits != 0 {
                    pos += bits.trailingZeroBitCount >> 3
                    break
                }
                pos += 8
            }
            guard pos < n else { throw .malformed }
            let b = p[pos]
            if b == UInt8(ascii: "\"") {
                let length = pos - start
                pos += 1
                return (start, length, escaped)
            } else if b == UInt8(ascii: "\\") {
                escaped = true
                try scanEscape()
            } else if b < 0x20 {
                throw .malformed
            } else if b >= 0x80 {
                try scanUTF8()
            } else {
                pos += 1
            }
        }
    }

    /// True when any byte of `w` is `"`, `\`, a control character or non-ASCII.
    @inline(__always) static func hasSpecialByte(_ w: UInt64) -> Bool { specialBits(w) != 0 }

    /// Non-zero when any byte of `w` is `"`, `\`, a control character or non-ASCII.
    @inline(__always) static func specialBits(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        let control = (w &- ones &* 0x20) & ~w
        return ((quoteZero | backslashZero | control) & highs) | (w & highs)
    }

    mutating func scanEscape() throws(ScanFailure) {
        guard pos + 1 < n else { throw .malformed }
        let c = p[pos + 1]
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            pos += 2
        case UInt8(ascii: "u"):
            let unit = try hex4(at: pos + 2)
            pos += 6
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard pos + 1 < n, p[pos] == UInt8(ascii: "\\"), p[pos + 1] == UInt8(ascii: "u") else { throw .malformed }
                let low = try hex4(at: pos + 2)
                guard low >= 0xDC00 && low <= 0xDFFF else { throw .malformed }
                pos += 6
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw .malformed
            }
        default:
            throw .malformed
        }
    }

    func hex4(at index: Int) throws(ScanFailure) -> UInt32 {
        guard index + 4 <= n else { throw .malformed }
        var value: UInt32 = 0
        for k in 0..<4 {
            let b = p[index + k]
            let digit: UInt32
            if b &- 0x30 < 10 { digit = UInt32(b &- 0x30) } else if (b | 0x20) &- 0x61 < 6 { digit = UInt32((b | 0x20) &- 0x61) + 10 } else { throw .malformed }
            value = value << 4 | digit
        }
        return value
    }

    /// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
    mutating func scanUTF8() throws(ScanFailure) {
        let b0 = p[pos]
        @inline(__always) func continuation(_ i: Int) -> Bool { i < n && p[i] & 0xC0 == 0x80 }
        switch b0 {
        case 0xC2...0xDF:
            guard continuation(pos + 1) else { throw .malformed }
            pos += 2
        case 0xE0...0xEF:
            guard pos + 2 < n, continuation(pos + 1), continuation(pos + 2) else { throw .malformed }
            let b1 = p[pos + 1]
            if b0 == 0xE0 && b1 < 0xA0 { throw .malformed }
            if b0 == 0xED && b1 > 0x9F { throw .malformed }
            pos += 3
        case 0xF0...0xF4:
            guard pos + 3 < n, continuation(pos + 1), continuation(pos + 2), continuation(pos + 3) else { throw .malformed }
            let b1 = p[pos + 1]
            if b0 == 0xF0 && b1 < 0x90 { throw .malformed }
            if b0 == 0xF4 && b1 > 0x8F { throw .malformed }
            pos += 4
        default:
            throw .malformed
        }
    }

    /// Decodes the escapes of a string span already validated by `scanString`.
    func decodeString(start: Int, length: Int, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        var i = start
        let end = start + length
        func hex(_ at: Int) -> UInt32 { (try? hex4(at: at)) ?? 0 }
        while i < end {
            let b = p[i]
            guard b == UInt8(ascii: "\\") else { out.append(b); i += 1; continue }
            let c = p[i + 1]
            switch c {
            case UInt8(ascii: "b"): out.append(0x08); i += 2
            case UInt8(ascii: "f"): out.append(0x0C); i += 2
            case UInt8(ascii: "n"): out.append(0x0A); i += 2
            case UInt8(ascii: "r"): out.append(0x0D); i += 2
            case UInt8(ascii: "t"): out.append(0x09); i += 2
            case UInt8(ascii: "u"):
                var scalar = hex(i + 2)
                i += 6
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = hex(i + 2)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                appendUTF8(scalar, to: &out)
            default: out.append(c); i += 2
            }
        }
    }

    private func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6)); out.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12)); out.append(UInt8(0x80 | (scalar >> 6) & 0x3F)); out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18)); out.append(UInt8(0x80 | (scalar >> 12) & 0x3F))
            out.append(UInt8(0x80 | (scalar >> 6) & 0x3F)); out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    // MARK: Numbers and literals

    /// Scans `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, reading its integer value when it
    /// is written as an integer.
    @inline(__always)
    mutating func scanNumber() throws(ScanFailure) -> NumberToken {
        var negative = false
        if p[pos] == UInt8(ascii: "-") { negative = true; pos += 1 }
        guard pos < n, p[pos] &- 0x30 < 10 else { throw .malformed }
        var magnitude: UInt64 = 0
        var overflow = false
        if p[pos] == UInt8(ascii: "0") {
            pos += 1
        } else {
            while pos < n, p[pos] &- 0x30 < 10 {
                let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (m2, o2) = m1.addingReportingOverflow(UInt64(p[pos] &- 0x30))
                overflow = overflow || o1 || o2
                magnitude = m2
                pos += 1
            }
        }
        var isInteger = true
        if pos < n, p[pos] == UInt8(ascii: ".") {
            isInteger = false
            pos += 1
            guard pos < n, p[pos] &- 0x30 < 10 else { throw .malformed }
            while pos < n, p[pos] &- 0x30 < 10 { pos += 1 }
        }
        if pos < n, p[pos] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            pos += 1
            if pos < n, p[pos] == UInt8(ascii: "+") || p[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < n, p[pos] &- 0x30 < 10 else { throw .malformed }
            while pos < n, p[pos] &- 0x30 < 10 { pos += 1 }
        }
        var value: Int64 = 0
        if !overflow {
            if negative {
                if magnitude <= UInt64(Int64.max) + 1 { value = magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude) } else { overflow = true }
            } else {
                if magnitude <= UInt64(Int64.max) { value = Int64(magnitude) } else { overflow = true }
            }
        }
        return NumberToken(isIntegerLiteral: isInteger, overflow: overflow, value: value)
    }

    /// Scans `true`, `false` or `null`.
    @inline(__always)
    mutating func scanLiteral() throws(ScanFailure) -> JSONKind {
        @inline(__always) func matches(_ literal: StaticString) -> Bool {
            let m = literal.utf8CodeUnitCount
            guard pos + m <= n else { return false }
            return bytesEqual(UnsafeRawPointer(p + pos), UnsafeRawPointer(literal.utf8Start), m)
        }
        switch p[pos] {
        case UInt8(ascii: "t") where matches("true"): pos += 4; return .boolTrue
        case UInt8(ascii: "f") where matches("false"): pos += 5; return .boolFalse
        case UInt8(ascii: "n") where matches("null"): pos += 4; return .null
        default: throw .malformed
        }
    }

    // MARK: Skipping containers

    /// Skips any value, validating it. Strings inside (keys and values) are passed to `onString`
    /// so callers can scan them for PII. `depth` is the absolute depth the value would open at.
    mutating func skipValue(depth: Int, maxDepth: Int, onString: (Int, Int, Bool) -> Void) throws(ScanFailure) -> JSONKind {
        switch peek {
        case UInt8(ascii: "\""):
            let s = try scanString()
            onString(s.start, s.length, s.escaped)
            return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try scanNumber()
            return .number
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let kind: JSONKind = peek == UInt8(ascii: "{") ? .object : .array
            try skipContainer(depth: depth, maxDepth: maxDepth, onString: onString)
            return kind
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return try scanLiteral()
        default:
            throw .malformed
        }
    }

    /// Skips a container iteratively: a bit stack (1 = object) replaces recursion, so hostile
    /// nesting cannot exhaust the call stack.
    mutating func skipContainer(depth: Int, maxDepth: Int, onString: (Int, Int, Bool) -> Void) throws(ScanFailure) {
        var stack: UInt64 = 0
        var level = 0
        let budget = min(maxDepth - depth + 1, 64)
        func open(_ isObject: Bool) throws(ScanFailure) {
            guard level < budget else { throw .tooDeep }
            stack = stack << 1 | (isObject ? 1 : 0)
            level += 1
        }
        try open(p[pos] == UInt8(ascii: "{"))
        pos += 1
        skipWhitespace()
        // Empty container.
        if peek == (stack & 1 == 1 ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
            pos += 1
            return
        }
        while true {
            if stack & 1 == 1 {
                guard peek == UInt8(ascii: "\"") else { throw .malformed }
                let key = try scanString()
                onString(key.start, key.length, key.escaped)
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
            }
            // A value: nested containers open a level, scalars are scanned in place.
            let b = peek
            if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                try open(b == UInt8(ascii: "{"))
                pos += 1
                skipWhitespace()
                let close: UInt8 = b == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if peek == close {
                    pos += 1
                    stack >>= 1
                    level -= 1
                } else {
                    continue
                }
            } else {
                _ = try skipValue(depth: depth + level, maxDepth: maxDepth, onString: onString)
            }
            // After a value: a comma continues this container, a closer pops levels.
            while true {
                skipWhitespace()
                let c = peek
                if c == UInt8(ascii: ",") {
                    pos += 1
                    skipWhitespace()
                    break
                }
                let close: UInt8 = stack & 1 == 1 ? UInt8(ascii: "}") : UInt8(ascii: "]")
                guard c == close else { throw .malformed }
                pos += 1
                stack >>= 1
                level -= 1
                if level == 0 { return }
            }
        }
    }
}

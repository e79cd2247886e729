/// A plain RFC 8259 recogniser, written from the RFC's grammar and sharing nothing with the
/// validator's scanner, so the robustness tests can say which documented code each input must get:
/// not JSON (`malformed_json`), JSON that is not an object (`not_an_object`), or an object (a code
/// about its content, if any). Slow and recursive on purpose: it is an oracle for short inputs,
/// not a parser.
enum ReferenceJSON {
    enum Kind: Equatable {
        case notJSON
        case notAnObject
        case object
    }

    /// What `bytes` are, and how deeply their arrays and objects nest (0 for a scalar).
    static func classify(_ bytes: [UInt8]) -> (kind: Kind, depth: Int) {
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let first = parser.index < bytes.count ? bytes[parser.index] : 0
        guard parser.value(depth: 0) else { return (.notJSON, parser.deepest) }
        parser.skipWhitespace()
        guard parser.index == bytes.count else { return (.notJSON, parser.deepest) }
        return (first == UInt8(ascii: "{") ? .object : .notAnObject, parser.deepest)
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var deepest = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var next: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = next, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func eat(_ character: Unicode.Scalar) -> Bool {
            guard next == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        /// value = false / null / true / object / array / number / string (RFC 8259 §3)
        mutating func value(depth: Int) -> Bool {
            guard let byte = next else { return false }
            switch byte {
            case UInt8(ascii: "{"): return container(close: "}", depth: depth + 1, member: true)
            case UInt8(ascii: "["): return container(close: "]", depth: depth + 1, member: false)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return false
            }
        }

        /// object = { [ member *( , member ) ] }, member = string : value; array likewise (§4, §5)
        mutating func container(close: Unicode.Scalar, depth: Int, member: Bool) -> Bool {
            deepest = max(deepest, depth)
            index += 1
            skipWhitespace()
            if eat(close) { return true }
            while true {
                if member {
                    guard string() else { return false }
                    skipWhitespace()
                    guard eat(":") else { return false }
                    skipWhitespace()
                }
                guard value(depth: depth) else { return false }
                skipWhitespace()
                if eat(",") {
                    skipWhitespace()
                    continue
                }
                return eat(close)
            }
        }

        mutating func literal(_ word: String) -> Bool {
            for byte in word.utf8 {
                guard next == byte else { return false }
                index += 1
            }
            return true
        }

        /// number = [ minus ] int [ frac ] [ exp ] (§6)
        mutating func number() -> Bool {
            _ = eat("-")
            guard let first = next, (0x30...0x39).contains(first) else { return false }
            index += 1
            if first != 0x30 { digits() }
            if eat(".") { guard digits() > 0 else { return false } }
            if eat("e") || eat("E") {
                if !eat("+") { _ = eat("-") }
                guard digits() > 0 else { return false }
            }
            return true
        }

        @discardableResult
        mutating func digits() -> Int {
            var count = 0
            while let byte = next, (0x30...0x39).contains(byte) { index += 1; count += 1 }
            return count
        }

        /// string = " *char " (§7): no raw control characters, only the listed escapes, `\u`
        /// surrogates in pairs; the raw bytes valid UTF-8 (§8.1: no overlong forms, no encoded
        /// surrogates).
        mutating func string() -> Bool {
            guard eat("\"") else { return false }
            let start = index
            var pendingHighSurrogate = false
            while let byte = next {
                index += 1
                if byte == UInt8(ascii: "\"") {
                    guard !pendingHighSurrogate else { return false }
                    return String(validating: bytes[start..<(index - 1)], as: UTF8.self) != nil
                }
                if byte < 0x20 { return false }
                if byte != UInt8(ascii: "\\") {
                    if pendingHighSurrogate { return false }
                    continue
                }
                guard let escaped = next else { return false }
                index += 1
                if escaped == UInt8(ascii: "u") {
                    guard let unit = hex4() else { return false }
                    switch unit {
                    case 0xD800...0xDBFF:
                        if pendingHighSurrogate { return false }
                        pendingHighSurrogate = true
                    case 0xDC00...0xDFFF:
                        if !pendingHighSurrogate { return false }
                        pendingHighSurrogate = false
                    default:
                        if pendingHighSurrogate { return false }
                    }
                } else {
                    if pendingHighSurrogate { return false }
                    guard Array("\"\\/bfnrt".utf8).contains(escaped) else { return false }
                }
            }
            return false
        }

        mutating func hex4() -> UInt16? {
            var unit: UInt16 = 0
            for _ in 0..<4 {
                guard let byte = next, let digit = Self.hexValue(byte) else { return nil }
                index += 1
                unit = unit << 4 | UInt16(digit)
            }
            return unit
        }

        static func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
    }
}

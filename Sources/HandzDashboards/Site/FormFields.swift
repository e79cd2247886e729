/// `application/x-www-form-urlencoded` text (a URL's query, a login form's body) as ordered
/// name/value pairs, repeats kept (the explorer's `step` pickers repeat).
public enum FormFields {
    /// The pairs of `text`; nil when a `%` escape is malformed or the bytes are not UTF-8, which
    /// the pages refuse (400) rather than guess at.
    public static func pairs(_ text: String) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for field in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decoded(parts[0]), let value = decoded(parts.count > 1 ? parts[1] : "") else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// Percent-decodes, with `+` as a space.
    static func decoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x37
        case 0x61...0x66: byte - 0x57
        default: nil
        }
    }
}

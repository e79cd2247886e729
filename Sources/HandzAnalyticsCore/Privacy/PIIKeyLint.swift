/// The PII key lint (CH33 §8.1: "rejects suspicious keys (email, phone, name, notes, description)").
///
/// A key is split into lowercase tokens at underscores, other punctuation, camelCase humps and
/// letter/digit boundaries. A token matches when it equals a denied token or its plural, or
/// contains one of the denied substrings (`useremail`, `phonenumber`). Keys the catalog lists as reviewed identifiers
/// (`screen_name`, `gate_name`, …) are allowed, with the reason. Keys that look like a PII value
/// themselves (an email address as a key) are flagged too.
public struct PIIKeyLint: Sendable {
    public enum Finding: Sendable, Equatable {
        /// No denied token.
        case clean
        /// Contains a denied token, but the catalog reviewed this exact key; `reason` says why.
        case reviewed(token: String, reason: String)
        /// Contains a denied token.
        case denied(token: String)
        /// The key itself looks like a PII value.
        case valueLike(PIIKind)

        public var isAllowed: Bool {
            switch self {
            case .clean, .reviewed: true
            case .denied, .valueLike: false
            }
        }
    }

    public let policy: PrivacyPolicy
    /// Denied tokens with their plurals, mapped to the token to report.
    private let deniedForms: [String: String]
    private let deniedSubstrings: [[UInt8]]

    public init(policy: PrivacyPolicy) {
        self.policy = policy
        var forms: [String: String] = [:]
        for token in policy.deniedKeyTokens.map({ $0.lowercased() }) {
            for form in [token, token + "s", token + "es"] where forms[form] == nil { forms[form] = token }
        }
        deniedForms = forms
        deniedSubstrings = policy.deniedKeySubstrings.map { Array($0.lowercased().utf8) }
    }

    public func check(_ key: String) -> Finding {
        if let kind = PIIValueScanner.scan(key) { return .valueLike(kind) }
        guard let token = deniedToken(in: key) else { return .clean }
        if let reason = policy.reviewedIdentifiers[key] { return .reviewed(token: token, reason: reason) }
        return .denied(token: token)
    }

    /// The first denied token (or substring) found in `key`, if any.
    public func deniedToken(in key: String) -> String? {
        for token in Self.tokens(of: key) {
            if let denied = deniedForms[token] { return denied }
            let bytes = Array(token.utf8)
            for fragment in deniedSubstrings where Self.contains(bytes, fragment) {
                return String(decoding: fragment, as: UTF8.self)
            }
        }
        return nil
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// Lowercase tokens of a key: `userEmail_2` → `user`, `email`, `2`. ASCII keys are split byte
    /// by byte; other keys by Unicode character properties.
    public static func tokens(of key: String) -> [String] {
        let utf8 = Array(key.utf8)
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return unicodeTokens(of: key) }
        enum Kind { case lower, upper, digit, other }
        func kind(_ b: UInt8) -> Kind {
            if b &- 0x61 < 26 { return .lower }
            if b &- 0x41 < 26 { return .upper }
            if b &- 0x30 < 10 { return .digit }
            return .other
        }
        var tokens: [String] = []
        var current: [UInt8] = []
        var previous = Kind.other
        for byte in utf8 {
            let k = kind(byte)
            if k == .other {
                if !current.isEmpty { tokens.append(String(decoding: current, as: UTF8.self)) }
                current = []
                previous = .other
                continue
            }
            let isDigit = k == .digit
            let boundary = (previous == .lower && k == .upper) || (previous != .other && (previous == .digit) != isDigit)
            if boundary, !current.isEmpty {
                tokens.append(String(decoding: current, as: UTF8.self))
                current = []
            }
            current.append(k == .upper ? byte | 0x20 : byte)
            previous = k
        }
        if !current.isEmpty { tokens.append(String(decoding: current, as: UTF8.self)) }
        return tokens
    }

    static func unicodeTokens(of key: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var previous: Character?
        for character in key {
            guard character.isLetter || character.isNumber else {
                if !current.isEmpty { tokens.append(current) }
                current = ""
                previous = nil
                continue
            }
            if let previous, (previous.isLowercase && character.isUppercase) || (previous.isLetter != character.isLetter), !current.isEmpty {
                tokens.append(current)
                current = ""
            }
            current.append(contentsOf: character.lowercased())
            previous = character
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}

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
    private let denied: [String]
    private let deniedSubstrings: [String]

    public init(policy: PrivacyPolicy) {
        self.policy = policy
        self.denied = policy.deniedKeyTokens.map { $0.lowercased() }
        self.deniedSubstrings = policy.deniedKeySubstrings.map { $0.lowercased() }
    }

    public func check(_ key: String) -> Finding {
        if let kind = PIIValueScanner.scan(key) { return .valueLike(kind) }
        guard let token = deniedToken(in: key) else { return .clean }
        if let reason = policy.reviewedIdentifiers[key] { return .reviewed(token: token, reason: reason) }
        return .denied(token: token)
    }

    /// The first denied token found in `key`, if any.
    public func deniedToken(in key: String) -> String? {
        for token in Self.tokens(of: key) {
            for candidate in denied where token == candidate || token == candidate + "s" || token == candidate + "es" {
                return candidate
            }
            for fragment in deniedSubstrings where token.contains(fragment) {
                return fragment
            }
        }
        return nil
    }

    /// Lowercase tokens of a key: `userEmail_2` → `user`, `email`, `2`.
    public static func tokens(of key: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var previous: Character?
        for character in key {
            let isBoundary: Bool
            if !(character.isLetter || character.isNumber) {
                if !current.isEmpty { tokens.append(current) }
                current = ""
                previous = nil
                continue
            } else if let previous {
                isBoundary = (previous.isLowercase && character.isUppercase) || (previous.isLetter != character.isLetter)
            } else {
                isBoundary = false
            }
            if isBoundary, !current.isEmpty {
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

/// The catalog's privacy rules for keys (CH33 §1, §2.1, §8.1).
public struct PrivacyPolicy: Sendable, Equatable {
    /// Key tokens that mark a key as likely PII (`email`, `phone`, `name`, `notes`, …).
    public var deniedKeyTokens: [String]
    /// Fragments denied anywhere inside a token, for compound keys (`useremail`, `phonenumber`).
    /// Kept separate from the tokens because short or common words would match innocent keys
    /// (`title` inside `entitlement`).
    public var deniedKeySubstrings: [String]
    /// Keys that contain a denied token but were reviewed and are allowed, with the reason
    /// (e.g. `screen_name`: a route identifier, not a person's name).
    public var reviewedIdentifiers: [String: String]

    public init(deniedKeyTokens: [String], deniedKeySubstrings: [String] = [], reviewedIdentifiers: [String: String]) {
        self.deniedKeyTokens = deniedKeyTokens
        self.deniedKeySubstrings = deniedKeySubstrings
        self.reviewedIdentifiers = reviewedIdentifiers
    }
}

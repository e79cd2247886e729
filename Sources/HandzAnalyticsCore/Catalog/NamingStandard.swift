/// The event naming standard of CH33 §4: `<domain>_<action>[_<object>]` in snake_case.
///
/// Decisions where §4 is silent, recorded here and in `catalog/naming.yaml`:
/// - The domain is the first token. `move_` and `flow_` count as the `moves` and `flows`
///   domains (`domainAliases`), because §6 itself names every event in them that way.
/// - The action is one of §4's verbs and may follow an object (`mastery_plan_created`), the
///   order §6 uses throughout.
/// - §6 names that break the standard are kept (the catalog is the authority) and listed in
///   `exceptions` with the reason; every other event must follow it.
public struct NamingStandard: Sendable, Equatable {
    public var domains: [String]
    public var verbs: [String]
    public var domainAliases: [String: String]
    /// Event name → why it is allowed to break the standard.
    public var exceptions: [String: String]

    public init(domains: [String], verbs: [String], domainAliases: [String: String] = [:], exceptions: [String: String] = [:]) {
        self.domains = domains
        self.verbs = verbs
        self.domainAliases = domainAliases
        self.exceptions = exceptions
    }

    /// What is wrong with `name` under the standard, or nil when it follows it.
    public func violation(of name: String) -> String? {
        guard isSnakeCase(name) else { return "is not snake_case ([a-z][a-z0-9]*(_[a-z0-9]+)*)" }
        let tokens = name.split(separator: "_").map(String.init)
        let domain = domainAliases[tokens[0]] ?? tokens[0]
        guard domains.contains(domain) else {
            return "does not start with a §4 domain (\(domains.joined(separator: ", ")))"
        }
        guard tokens.dropFirst().contains(where: { verbs.contains($0) }) else {
            return "has no §4 action verb (\(verbs.joined(separator: ", ")))"
        }
        return nil
    }

    /// The §4 domain of `name`'s first token, resolving aliases.
    public func domain(of name: String) -> String? {
        guard let first = name.split(separator: "_").first.map(String.init) else { return nil }
        let domain = domainAliases[first] ?? first
        return domains.contains(domain) ? domain : nil
    }
}

/// `[a-z][a-z0-9]*(_[a-z0-9]+)*`: lowercase tokens joined by single underscores.
public func isSnakeCase(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard let first = bytes.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else { return false }
    var previousWasUnderscore = false
    for byte in bytes {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            previousWasUnderscore = false
        case UInt8(ascii: "_"):
            if previousWasUnderscore { return false }
            previousWasUnderscore = true
        default:
            return false
        }
    }
    return !previousWasUnderscore
}

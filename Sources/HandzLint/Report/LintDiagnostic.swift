/// One finding at one place in the app's sources. Messages name identifiers from the code (event
/// names, keys) but never a literal value: a value the PII scan flags may be personal data.
public struct LintDiagnostic: Sendable, Equatable, Comparable, Codable {
    public var rule: LintRule
    public var severity: LintSeverity
    public var location: SourcePosition
    public var message: String
    /// How to fix it: the rule's hint, sometimes with specifics (the properties an event declares).
    public var hint: String

    public init(rule: LintRule, severity: LintSeverity, location: SourcePosition, message: String, hint: String? = nil) {
        self.rule = rule
        self.severity = severity
        self.location = location
        self.message = message
        self.hint = hint ?? rule.hint
    }

    /// `path:line:column: error|warning: [rule-id] message (spec); fix: hint` — the shape compilers
    /// print, so Xcode and `swift build` show it at the line.
    public var formatted: String {
        "\(location): \(severity.rawValue): [\(rule.id)] \(message) (\(rule.specReference)); fix: \(hint)"
    }

    public static func < (lhs: LintDiagnostic, rhs: LintDiagnostic) -> Bool {
        (lhs.location, lhs.rule) < (rhs.location, rhs.rule)
    }
}

/// A place in a source file: 1-based line and column (columns count UTF-8 bytes, as compilers do).
public struct SourcePosition: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    public var path: String
    public var line: Int
    public var column: Int

    public init(path: String, line: Int, column: Int) {
        self.path = path
        self.line = line
        self.column = column
    }

    public var description: String { "\(path):\(line):\(column)" }

    public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        (lhs.path, lhs.line, lhs.column) < (rhs.path, rhs.line, rhs.column)
    }
}

/// A catalogued event that the sources emit, and where (for `lint status`).
public struct EventEmission: Sendable, Equatable, Codable {
    public var event: String
    public var location: SourcePosition

    public init(event: String, location: SourcePosition) {
        self.event = event
        self.location = location
    }
}

/// Why `.handz-analytics.yml` could not be used. Each case has a stable code; the description
/// names the file and, where known, the line.
public enum LintConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String)
    /// Not YAML, or not the expected shape (a mapping of known keys).
    case malformed(path: String, line: Int, reason: String)
    /// A `severity` entry names a rule that does not exist.
    case unknownRule(path: String, line: Int, rule: String)
    /// A severity other than `error`, `warning` or `off`.
    case invalidSeverity(path: String, line: Int, value: String)

    public var code: String {
        switch self {
        case .unreadable: "config_unreadable"
        case .malformed: "config_malformed"
        case .unknownRule: "config_unknown_rule"
        case .invalidSeverity: "config_invalid_severity"
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path):
            "\(path): error: [\(code)] cannot read the lint configuration"
        case .malformed(let path, let line, let reason):
            "\(path):\(line): error: [\(code)] \(reason)"
        case .unknownRule(let path, let line, let rule):
            "\(path):\(line): error: [\(code)] unknown rule '\(rule)' (rules: \(LintRule.allCases.map(\.id).joined(separator: ", ")))"
        case .invalidSeverity(let path, let line, let value):
            "\(path):\(line): error: [\(code)] severity '\(value)' is not error, warning or off"
        }
    }
}

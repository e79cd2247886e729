/// What `.handz-analytics.yml` configures: where the catalog is, which calls emit events, which
/// calls count as logging, what to skip, and each rule's severity.
///
/// ```yaml
/// catalog: ../handz-analytics/catalog   # relative to this file; default: the plugin's own catalog
/// calls:                                # default: [track]
///   - track
///   - name: logEvent
///     properties: parameters
/// logging: [print, NSLog, debugPrint, dump, os_log]
/// exclude: [Generated/]                 # path prefixes, relative to this file
/// severity:
///   random_logging: error               # error | warning | off
/// ```
public struct LintConfiguration: Sendable, Equatable {
    /// The standard name of the configuration file, found by walking up from a target's directory.
    public static let fileName = ".handz-analytics.yml"

    /// The catalog directory, absolute (resolved against the configuration file's directory).
    public var catalogDirectory: String?
    public var calls: [CallShape]
    /// Free functions that write logs (CH33 §1 "no random logging").
    public var loggingFunctions: [String]
    /// Absolute path prefixes whose files are not linted.
    public var excludedPaths: [String]
    /// Severities that differ from the rules' defaults; a rule mapped to `nil` is off.
    public var severityOverrides: [LintRule: LintSeverity?]

    public init(
        catalogDirectory: String? = nil, calls: [CallShape] = [.track],
        loggingFunctions: [String] = LintConfiguration.defaultLoggingFunctions,
        excludedPaths: [String] = [], severityOverrides: [LintRule: LintSeverity?] = [:]
    ) {
        self.catalogDirectory = catalogDirectory
        self.calls = calls
        self.loggingFunctions = loggingFunctions
        self.excludedPaths = excludedPaths
        self.severityOverrides = severityOverrides
    }

    public static let defaultLoggingFunctions = ["print", "NSLog", "debugPrint", "dump", "os_log"]

    /// The configuration used when no `.handz-analytics.yml` is found.
    public static let standard = LintConfiguration()

    /// The severity `rule` reports with, or `nil` when it is off.
    public func severity(of rule: LintRule) -> LintSeverity? {
        if let override = severityOverrides[rule] { return override }
        return rule.defaultSeverity
    }

    /// Whether `path` (absolute) falls under an `exclude` prefix.
    public func isExcluded(_ path: String) -> Bool {
        excludedPaths.contains { path == $0 || path.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
    }
}

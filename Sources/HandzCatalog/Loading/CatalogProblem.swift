import HandzAnalyticsCore
import HandzQA

/// A place in a catalog file.
public struct CatalogLocation: Sendable, Hashable, Comparable {
    /// Path relative to the catalog directory, e.g. `events/05_builder.yaml`.
    public var file: String
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.file, lhs.line) < (rhs.file, rhs.line)
    }
}

/// Something wrong with the catalog, reported as `path:line: error: message` so editors and CI
/// annotate the exact line.
public struct CatalogProblem: Sendable, Hashable, Comparable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }

    public var location: CatalogLocation
    public var severity: Severity
    public var message: String

    public init(_ location: CatalogLocation, _ message: String, severity: Severity = .error) {
        self.location = location
        self.severity = severity
        self.message = message
    }

    /// `catalog/events/05_builder.yaml:12: error: …` with the catalog directory as prefix.
    public func formatted(catalogDirectory: String) -> String {
        let prefix = catalogDirectory.hasSuffix("/") ? catalogDirectory : catalogDirectory + "/"
        return "\(prefix)\(location.file):\(location.line): \(severity.rawValue): \(message)"
    }

    public var description: String { "\(location.file):\(location.line): \(severity.rawValue): \(message)" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.location, lhs.message) < (rhs.location, rhs.message)
    }
}

/// Where each catalog entry was defined, for lint messages.
public struct CatalogSourceMap: Sendable {
    public var events: [String: CatalogLocation] = [:]
    public var properties: [String: CatalogLocation] = [:]
    /// "event/property" → the line where an event declares a property.
    public var eventProperties: [String: CatalogLocation] = [:]
    public var funnels: [String: CatalogLocation] = [:]
    /// "F0/2" → the line of a funnel's second step (1-based).
    public var funnelSteps: [String: CatalogLocation] = [:]
    public var kpis: [String: CatalogLocation] = [:]
    public var namingExceptions: [String: CatalogLocation] = [:]
    public var reviewedIdentifiers: [String: CatalogLocation] = [:]
    public var envelope: [String: CatalogLocation] = [:]
    public var files: [String] = []

    public init() {}

    func event(_ name: String) -> CatalogLocation { events[name] ?? CatalogLocation(file: "events", line: 1) }
    func property(_ name: String) -> CatalogLocation { properties[name] ?? CatalogLocation(file: "properties.yaml", line: 1) }
}

/// A catalog read from disk, with where everything came from and what could not be read.
public struct LoadedCatalog: Sendable {
    public var catalog: Catalog
    public var sources: CatalogSourceMap
    /// Problems found while reading (YAML syntax, wrong shapes, duplicates). `CatalogLinter`
    /// adds the semantic checks.
    public var loadProblems: [CatalogProblem]
    /// The directory the catalog was read from.
    public var directory: String
    /// The QA rules of `qa/*.yaml` (CH33 §8.2, §13), checked against the catalog as read.
    public var qaRules = QARuleSet(rules: [])
    /// Apple's data types for every property (`collected_data` in privacy.yaml, issue 23).
    public var collectedData = CollectedDataPolicy()
}

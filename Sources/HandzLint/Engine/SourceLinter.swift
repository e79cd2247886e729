import HandzAnalyticsCore
import SwiftParser
import SwiftSyntax

/// Lints Swift source text: parses it with the compiler's parser (swift-syntax), finds the
/// analytics calls and logging calls, and applies every rule. Pure: text in, findings out.
public struct SourceLinter: Sendable {
    public let catalog: LintCatalog
    public let configuration: LintConfiguration

    public init(catalog: Catalog, configuration: LintConfiguration = .standard) {
        self.catalog = LintCatalog(catalog)
        self.configuration = configuration
    }

    /// What one file contributes: its diagnostics (in source order) and the events it emits.
    public struct FileResult: Sendable, Equatable, Codable {
        public var diagnostics: [LintDiagnostic] = []
        public var emissions: [EventEmission] = []
    }

    /// Lints one file. `path` only labels the diagnostics.
    public func lint(source: String, path: String) -> FileResult {
        // Every rule needs an analytics call, and a call needs its name in the text: a file
        // without any call name cannot produce a finding, so it is not parsed at all.
        guard configuration.calls.contains(where: { source.contains($0.name) }) else { return FileResult() }
        let tree = Parser.parse(source: source)
        let visitor = AnalyticsCallVisitor(shapes: configuration.calls, loggingFunctions: configuration.loggingFunctions)
        visitor.walk(tree)
        guard !visitor.analyticsCalls.isEmpty else { return FileResult() }

        var checker = AnalyticsCallChecker(catalog: catalog)
        for (call, shape) in visitor.analyticsCalls { checker.check(call, shape: shape) }
        // CH33 §1 "No 'random logging' in code": only files that emit analytics are held to it.
        let logging = visitor.loggingCalls.map { name, callee in
            Finding(rule: .randomLogging, position: callee.positionAfterSkippingLeadingTrivia,
                    message: "'\(name)' outside #if DEBUG in a file that emits analytics")
        }

        let converter = SourceLocationConverter(fileName: path, tree: tree)
        func position(_ offset: AbsolutePosition) -> SourcePosition {
            let location = converter.location(for: offset)
            return SourcePosition(path: path, line: location.line, column: location.column)
        }
        var result = FileResult()
        for finding in checker.findings + logging {
            guard let severity = configuration.severity(of: finding.rule) else { continue }
            result.diagnostics.append(LintDiagnostic(
                rule: finding.rule, severity: severity, location: position(finding.position), message: finding.message, hint: finding.hint
            ))
        }
        result.diagnostics.sort()
        result.emissions = checker.emissions.map { EventEmission(event: $0.event, location: position($0.position)) }
        return result
    }
}

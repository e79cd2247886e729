import HandzCatalog

/// How a lint report is printed: `xcode` for builds (compiler-style lines Xcode and `swift build`
/// place at the line), `json` for scripts, `sarif` (2.1.0) for code-scanning services.
public enum LintOutputFormat: String, CaseIterable, Sendable {
    case xcode
    case json
    case sarif

    public func render(_ report: LintReport) -> String {
        switch self {
        case .xcode:
            return report.diagnostics.map(\.formatted).joined(separator: "\n")
        case .json:
            return JSONValue.object([
                ("errors", .integer(Int64(report.errorCount))),
                ("warnings", .integer(Int64(report.warningCount))),
                ("files", .integer(Int64(report.fileCount))),
                ("diagnostics", .array(report.diagnostics.map(Self.json))),
            ]).serialized()
        case .sarif:
            return SARIFLog(report).json.serialized()
        }
    }

    static func json(_ diagnostic: LintDiagnostic) -> JSONValue {
        .object([
            ("file", .string(diagnostic.location.path)),
            ("line", .integer(Int64(diagnostic.location.line))),
            ("column", .integer(Int64(diagnostic.location.column))),
            ("severity", .string(diagnostic.severity.rawValue)),
            ("rule", .string(diagnostic.rule.id)),
            ("message", .string(diagnostic.message)),
            ("hint", .string(diagnostic.hint)),
        ])
    }
}

import HandzCatalog

/// A lint report as a SARIF 2.1.0 log (OASIS Static Analysis Results Interchange Format): one
/// run, the rules with their descriptions and hints, one result per diagnostic.
struct SARIFLog {
    let report: LintReport

    init(_ report: LintReport) { self.report = report }

    var json: JSONValue {
        .object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            ("runs", .array([.object([
                ("tool", .object([("driver", .object([
                    ("name", .string("handz-lint")),
                    ("rules", .array(LintRule.allCases.map(Self.rule))),
                ]))])),
                ("results", .array(report.diagnostics.map(Self.result))),
            ])])),
        ])
    }

    private static func rule(_ rule: LintRule) -> JSONValue {
        .object([
            ("id", .string(rule.id)),
            ("shortDescription", .object([("text", .string(rule.summary))])),
            ("help", .object([("text", .string("Fix: \(rule.hint) (\(rule.specReference))."))])),
            ("defaultConfiguration", .object([("level", .string(rule.defaultSeverity.rawValue))])),
        ])
    }

    private static func result(_ diagnostic: LintDiagnostic) -> JSONValue {
        .object([
            ("ruleId", .string(diagnostic.rule.id)),
            ("level", .string(diagnostic.severity.rawValue)),
            ("message", .object([("text", .string("\(diagnostic.message); fix: \(diagnostic.hint)"))])),
            ("locations", .array([.object([("physicalLocation", .object([
                ("artifactLocation", .object([("uri", .string(diagnostic.location.path))])),
                ("region", .object([
                    ("startLine", .integer(Int64(diagnostic.location.line))),
                    ("startColumn", .integer(Int64(diagnostic.location.column))),
                ])),
            ]))])])),
        ])
    }
}

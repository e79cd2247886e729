import HandzAnalyticsCore
import HandzLint
import HandzTestSupport

/// The repository catalog's linter with the default configuration (`track`).
let standardLinter = SourceLinter(catalog: RepositoryCatalog.catalog)

/// What linting `body` (wrapped in a function, so `body` starts on line 3) reports, as
/// `rule@line` strings in source order — compact enough to compare whole lists.
func findings(_ body: String, linter: SourceLinter = standardLinter) -> [String] {
    lint(body, linter: linter).map { "\($0.rule.id)@\($0.location.line)" }
}

func lint(_ body: String, linter: SourceLinter = standardLinter) -> [LintDiagnostic] {
    let source = "import Foundation\nfunc screen(analytics: Analytics, email: String, name: String, props: [String: Any]) {\n\(body)\n}\n"
    return linter.lint(source: source, path: "App/Screen.swift").diagnostics
}

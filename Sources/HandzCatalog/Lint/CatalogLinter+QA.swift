import Foundation
import HandzAnalyticsCore
import HandzQA

/// Every bullet of the CH33 §8.2 checklist and every acceptance test of §13 is a rule or an
/// unchecked item that says why (issue: "QA as code").
extension Lint {
    /// The labels each rule's or unchecked item's `spec` names (`CH33 §8.2 Cold start`).
    static let qaChecklist = [
        "§8.2 Cold start", "§8.2 Guest flow", "§8.2 Save flow blocked", "§8.2 Share link", "§8.2 Inbox cap", "§8.2 Practice",
        "§8.2 Credits", "§8.2 Paywall", "§8.2 Performance", "§8.2 Analytics opt-out",
        "§13 Event allowlist", "§13 screen_viewed", "§13 Funnels", "§13 Analytics opt-out", "§13 No PII leakage",
        "§13 Offline queue", "§13 Dashboards",
    ]

    /// Only for a catalog that has QA rules (`catalog/qa/`): a catalog without them — an app's
    /// own copy, a test fixture — is still a valid catalog for validation and the lint.
    mutating func checkQACoverage(_ rules: QARuleSet) {
        guard !(rules.rules.isEmpty && rules.unchecked.isEmpty) else { return }
        let specs = rules.rules.map(\.spec) + rules.unchecked.map(\.spec)
        for label in Self.qaChecklist where !specs.contains(where: { $0.contains(label) }) {
            error(CatalogLocation(file: "qa", line: 1), "CH33 \(label) is neither a QA rule nor an unchecked item with its reason")
        }
    }
}

import Foundation
import HandzAnalyticsCore
import HandzQA

/// Loads QA rule files: the catalog's own `qa/` (read with the catalog, so `catalog lint` checks
/// it) or any directory given to `handz-analytics qa --rules DIR`.
public enum QARuleLoader {
    /// Every `*.yaml` in `directory`, in name order, checked against `catalog`. Problems carry
    /// `prefix` + file name and the line. A missing directory is no rules and no problem.
    public static func read(directory: String, prefix: String, catalog: Catalog) -> (rules: QARuleSet, problems: [CatalogProblem]) {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
        var reader = QARuleReader(catalog: catalog)
        for file in files {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(file).path
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                reader.problems.append(CatalogProblem(CatalogLocation(file: prefix + file, line: 1), "unreadable file"))
                continue
            }
            reader.read(file: prefix + file, text: text)
        }
        return (QARuleSet(rules: reader.rules, unchecked: reader.unchecked), reader.problems.sorted())
    }
}

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

    mutating func checkQACoverage(_ rules: QARuleSet) {
        let specs = rules.rules.map(\.spec) + rules.unchecked.map(\.spec)
        for label in Self.qaChecklist where !specs.contains(where: { $0.contains(label) }) {
            error(CatalogLocation(file: "qa", line: 1), "CH33 \(label) is neither a QA rule nor an unchecked item with its reason")
        }
    }
}

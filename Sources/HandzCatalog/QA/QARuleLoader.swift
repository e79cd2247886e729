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

import Foundation
@testable import HandzDashboards
import HandzQuery
import Testing

/// Funnel step labels that never run into each other, however long the names (issue 37 §6), and
/// a breakdown drawn in the chart: one bar per kept value at each step, "(other)" last in grey.
@Suite struct ChartLabelTests {
    static let longNames = ["onboarding_personalization_question_answered", "flow_template_gallery_opened_from_home_screen",
                            "subscription_paywall_viewed_after_trial_prompt", "a", "technique_added_to_flow_from_search_results",
                            "account_created_with_sign_in_with_apple_provider", "Success"]

    /// Each `step-label` text of an SVG: its centre and its lines.
    func stepLabels(_ svg: String) throws -> [(center: Double, lines: [String])] {
        let texts = try Regex(#"<text x="([0-9.]+)"[^>]*class="step-label">(.*?)</text>"#)
        let spans = try Regex(#"<tspan[^>]*>(.*?)</tspan>"#)
        return svg.matches(of: texts).map { match in
            let center = Double(match.output[1].substring ?? "") ?? -1
            let body = String(match.output[2].substring ?? "")
            return (center, body.matches(of: spans).map { String($0.output[1].substring ?? "") })
        }
    }

    @Test("wrapped labels fit their width, take at most three lines, keep every character that fits and end in … when cut")
    func wrapping() {
        for steps in 2...9 {
            let slot = SVGCanvas.plotWidth / Double(steps)
            for name in Self.longNames {
                let text = "\(steps). \(name)"
                let lines = SVGCanvas.wrap(text, width: slot * 0.92, size: 9)
                #expect(!lines.isEmpty && lines.count <= 3)
                for line in lines { #expect(SVGCanvas.textWidth(line.count, size: 9) <= slot * 0.92, "\(line) in \(slot)") }
                let kept = lines.joined().replacingOccurrences(of: " ", with: "")
                let whole = text.replacingOccurrences(of: " ", with: "")
                if lines.last?.hasSuffix("…") == true {
                    #expect(whole.hasPrefix(String(kept.dropLast())), "a cut label keeps its beginning: \(lines)")
                } else {
                    #expect(kept == whole, "nothing lost: \(lines)")
                }
            }
        }
        #expect(SVGCanvas.wrap("1. app_open", width: 200, size: 9) == ["1. app_open"])
        #expect(SVGCanvas.wrap("2. onboarding_viewed", width: 70, size: 9) == ["2.", "onboarding_", "viewed"])
    }

    @Test("the labels of a funnel with seven long step names do not overlap: each lies within its own step's slot")
    func funnelLabelsDoNotOverlap() throws {
        let steps = Self.longNames.enumerated().map { (label: $1, actors: Int64(1_000 - $0 * 100)) }
        let svg = Charts.funnel(id: "t", title: "T", steps: steps, unit: "installs")
        let labels = try stepLabels(svg)
        #expect(labels.count == steps.count)
        let extents = labels.map { label in
            let width = label.lines.map { SVGCanvas.textWidth($0.count, size: Charts.stepLabelSize) }.max() ?? 0
            return (label.center - width / 2, label.center + width / 2)
        }
        for (left, right) in zip(extents, extents.dropFirst()) { #expect(left.1 < right.0, "\(left) overlaps \(right)") }
        #expect(labels.allSatisfy { $0.lines.count <= 3 })
        #expect(svg.contains("class=\"step-label\"><tspan"))
    }

    @Test("a breakdown is drawn in the chart: one bar per value at each step, the legend in order, \"(other)\" last in grey")
    func groupedFunnel() throws {
        let report = try ServedPageBreakdownTests.evaluated(values: 20, limit: BreakdownLimit.values)
        let buckets = try #require(report.breakdown)
        let groups = buckets.map { (name: PanelRenderer.bucketLabel($0), actors: $0.steps.map(\.actors)) }
        let svg = Charts.groupedFunnel(id: "g", title: "F", steps: ["app_open", "onboarding_viewed"], groups: groups, breakdown: "app_version", unit: "installs")
        #expect(svg.components(separatedBy: " · app_version = ").count - 1 == 2 * buckets.count)
        #expect(svg.contains("onboarding_viewed · app_version = (other): 42 installs"))
        #expect(svg.contains("app_open · app_version = v20: 20 installs (100.0% of step 1)"))
        let legend = groups.map { ">\(HTML.escape(Charts.shorten($0.name, 17)))</text>" }
        let positions = legend.compactMap { svg.range(of: $0)?.lowerBound }
        #expect(positions.count == groups.count && positions == positions.sorted(), "the legend lists the values in order")
        #expect(svg.contains("fill=\"#718096\""), "(other) in grey")
    }
}

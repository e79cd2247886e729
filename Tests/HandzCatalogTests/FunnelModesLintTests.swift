import HandzAnalyticsCore
import HandzCatalog
import Testing

/// The funnel language's order and exclusions (issue 35 §3): `order:` and `exclude:` load into
/// the definition and its generated Swift, and `catalog lint` refuses what the queries refuse
/// (`FunnelModes`), with the funnel's line.
@Suite struct FunnelModesLintTests {
    let linter = CatalogLinterTests()

    static func adding(_ text: String, to funnel: String) -> (String) -> String {
        { $0.replacingOccurrences(of: "  \(funnel):\n", with: "  \(funnel):\n" + text) }
    }

    @Test("order and exclusions load, default to every step, and reach the generated catalog")
    func loads() throws {
        let (loaded, problems) = try linter.brokenCatalog("funnels.yaml", Self.adding("""
                order: strict
            """ + "\n", to: "F0"))
        #expect(problems.isEmpty, "\(problems.map(\.description))")
        #expect(loaded.catalog.funnels.first { $0.id == "F0" }?.order == .strict)

        let (excluding, none) = try linter.brokenCatalog("funnels.yaml", Self.adding("""
                exclude:
                  - events: [app_background]
                  - events: [gate_result]
                    where: {result: [blocked]}
                    between: [3, 4]
            """ + "\n", to: "F1"))
        #expect(none.isEmpty, "\(none.map(\.description))")
        let f1 = try #require(excluding.catalog.funnels.first { $0.id == "F1" })
        #expect(f1.exclusions == [FunnelExclusion(events: ["app_background"], fromStep: 1, toStep: 4),
                                  FunnelExclusion(events: ["gate_result"], filters: [PropertyFilter(property: "result", values: ["blocked"])], fromStep: 3, toStep: 4)])
        let swift = BundledCatalogGenerator(catalog: excluding.catalog, files: [:]).source()
        #expect(swift.contains("exclusions: [FunnelExclusion(events: [\"app_background\"], filters: [], fromStep: 1, toStep: 4)"))
    }

    @Test("refused: any order with a success, a mode on a keyed funnel, exclusions in a strict funnel, a bad range or event, an unknown order")
    func refusals() throws {
        for (funnel, text, message) in [
            ("F3", "    order: any\n", "F3: a funnel in any order has no steps between which to exclude or after which to succeed"),
            ("F4", "    order: strict\n", "F4: order modes, exclusions and conversion over time are for single-actor funnels"),
            ("F0", "    order: strict\n    exclude:\n      - events: [screen_viewed]\n", "F0: a strict funnel has nothing between its steps to exclude"),
            ("F0", "    exclude:\n      - events: [screen_viewed]\n        between: [3, 9]\n", "F0: exclusion 1 needs events and steps a < b"),
            ("F0", "    exclude:\n      - events: [no_such_event]\n", "F0 exclusion 1: no_such_event is not an enabled catalogued event"),
            ("F0", "    order: sideways\n", "F0 order must be one of sequential, strict, any"),
        ] {
            let (_, problems) = try linter.brokenCatalog("funnels.yaml", Self.adding(text, to: funnel))
            linter.expectProblem(problems, file: "funnels.yaml", containing: message)
        }
    }
}

import HandzAnalyticsCore
import HandzCatalog
import Testing

/// The lint of catalog 2.0.0's funnel language (issue 32 §7): links in a single-actor funnel tie
/// every later step to step 1 (F4's plan), and a success's `first_by` (F2's first save) names a
/// property its events carry — the shapes the chain walk and the SQL implement.
@Suite struct FunnelChainKeyLintTests {
    let linter = CatalogLinterTests()

    @Test("F4 is keyed by the plan through step 1's mastery_plan_id, and F2's success is a flow's first save")
    func shippedShapes() throws {
        let (loaded, problems) = try linter.brokenCatalog("funnels.yaml") { $0 }
        #expect(problems.isEmpty)
        let f4 = try #require(loaded.catalog.funnels.first { $0.id == "F4" })
        #expect(f4.chainKey?.map(\.event) == ["mastery_plan_created", "mastery_schedule_saved", "practice_session_started"])
        #expect(f4.chainKey?.map(\.property) == ["mastery_plan_id", "mastery_plan_id", "target_id"])
        #expect(loaded.catalog.funnels.first { $0.id == "F2" }?.successCondition?.firstBy == "flow_id")
        #expect(loaded.catalog.funnels.filter { $0.id != "F4" }.allSatisfy { $0.chainKey == nil })
    }

    @Test("a single-actor link that skips step 1, or a later step left unlinked, is refused")
    func keyedShapeOnly() throws {
        let step3 = "link: {step: 1, property: target_id, step_property: mastery_plan_id}"
        let (_, toStepTwo) = try linter.brokenCatalog("funnels.yaml") { $0.replacingOccurrences(of: step3, with: "link: {step: 2, property: target_id, step_property: mastery_plan_id}") }
        linter.expectProblem(toStepTwo, file: "funnels.yaml", containing: "F4 step 3 link: in a single-actor funnel, links tie every step after the first to step 1")
        let (_, unlinked) = try linter.brokenCatalog("funnels.yaml") { $0.replacingOccurrences(of: "        link: {step: 1, property: mastery_plan_id}\n", with: "") }
        linter.expectProblem(unlinked, file: "funnels.yaml", containing: "F4 step 3 link: in a single-actor funnel")
        let (_, uncarried) = try linter.brokenCatalog("funnels.yaml") { $0.replacingOccurrences(of: step3, with: "link: {step: 1, property: mastery_plan_id}") }
        linter.expectProblem(uncarried, file: "funnels.yaml", containing: "practice_session_started does not carry mastery_plan_id")
    }

    @Test("first_by names a property the success's events carry")
    func firstByCarried() throws {
        let (_, problems) = try linter.brokenCatalog("funnels.yaml") { $0.replacingOccurrences(of: "      first_by: flow_id", with: "      first_by: share_link_id") }
        linter.expectProblem(problems, file: "funnels.yaml", containing: "F2 success first_by: flow_saved_success does not carry share_link_id")
    }
}

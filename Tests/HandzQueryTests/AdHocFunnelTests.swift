import HandzAnalyticsCore
import HandzQuery
import HandzTestSupport
import Testing

/// The explorer's and `funnel --steps`' funnels (issue 16 §3): what is accepted, and what is
/// refused without the text being repeated.
@Suite struct AdHocFunnelTests {
    static let catalog = RepositoryCatalog.catalog

    @Test("steps, alternatives and closed-set filters read back as the text they came from")
    func roundTrip() throws {
        let text = "app_open[launch_source=push|deep_link;start_type=cold],onboarding_viewed[user_state=guest],flow_builder_opened|library_viewed"
        let funnel = try AdHocFunnel.definition(text, windowSeconds: 3_600, catalog: Self.catalog)
        #expect(funnel.id == AdHocFunnel.id && funnel.windowSeconds == 3_600 && funnel.successCondition == nil)
        #expect(funnel.steps.map(\.events) == [["app_open"], ["onboarding_viewed"], ["flow_builder_opened", "library_viewed"]])
        #expect(funnel.steps[0].filters == [PropertyFilter(property: "launch_source", values: ["push", "deep_link"]),
                                            PropertyFilter(property: "start_type", values: ["cold"])])
        #expect(AdHocFunnel.text(funnel.steps) == text)
        // Every catalog funnel's steps without links round-trip too.
        for catalogued in Self.catalog.funnels where catalogued.handoffIndex == nil {
            let again = try AdHocFunnel.definition(AdHocFunnel.text(catalogued.steps), windowSeconds: 60, catalog: Self.catalog)
            #expect(again.steps.map(\.events) == catalogued.steps.map(\.events) && again.steps.map(\.filters) == catalogued.steps.map(\.filters), "\(catalogued.id)")
        }
    }

    @Test("refused with the step and the reason, never the text", arguments: [
        ("app_open", "2 to"),
        ("app_open,secret_text_x", "step 2: every event must be an enabled event"),
        ("app_open,,onboarding_viewed", "step 2: every event must be an enabled event"),
        ("app_open,entitlement_snapshot_loaded", "step 2: every event must be an enabled event"),
        ("app_open[start_type=secret_text_x],onboarding_viewed", "step 1: a filter value is not in"),
        ("app_open[screen_name=secret_text_x],onboarding_viewed", "step 1: filters are on closed-set properties"),
        ("app_open[completion_path=guest],onboarding_viewed", "step 1: every event of the step must carry"),
        ("app_open[start_type],onboarding_viewed", "step 1: a filter is property=value"),
        ("app_open[start_type=cold;start_type=warm],onboarding_viewed", "step 1: a property is filtered twice"),
        ("app_open[start_type=cold,onboarding_viewed", "brackets do not match"),
        ("app_open]secret_text_x[,onboarding_viewed", "brackets do not match"),
    ])
    func refused(text: String, reason: String) {
        let error = #expect(throws: QueryError.self) { try AdHocFunnel.definition(text, windowSeconds: 60, catalog: Self.catalog) }
        let message = error?.description ?? ""
        #expect(message.contains(reason), "\(message)")
        #expect(!message.contains("secret_text") && !message.contains("screen_name"), "\(message)")
    }

    @Test("2 to maxSteps steps, and a positive window")
    func bounds() throws {
        let many = Array(repeating: "app_open", count: FunnelDefinition.maxSteps).joined(separator: ",")
        #expect(try AdHocFunnel.definition(many, windowSeconds: 60, catalog: Self.catalog).steps.count == FunnelDefinition.maxSteps)
        #expect(throws: QueryError.self) { try AdHocFunnel.definition(many + ",app_open", windowSeconds: 60, catalog: Self.catalog) }
        #expect(throws: QueryError.invalidWindow) { try AdHocFunnel.definition("app_open,app_open", windowSeconds: 0, catalog: Self.catalog) }
    }
}

import HandzLint
import HandzTestSupport
import Testing

/// CH33 §1 "Event Catalog Authority", §6, §8.1: only catalogued, enabled events, named so the
/// lint can read them.
@Suite struct EventRuleTests {
    @Test("a catalogued event name passes, with any receiver or none")
    func cataloguedNamesPass() {
        #expect(findings("""
            analytics.track("app_open", properties: ["start_type": "cold", "launch_source": "direct"])
            Analytics.shared?.track("screen_viewed", properties: ["screen_name": "home/demo"])
            track("paywall_viewed")
            """) == [])
    }

    @Test("an event name that is not catalogued is an error at the literal")
    func unknownEvent() {
        let diagnostics = lint(#"    analytics.track("flow_saved_succes", properties: [:])"#)
        #expect(diagnostics.map(\.rule) == [.unknownEvent])
        #expect(diagnostics.first?.location == SourcePosition(path: "App/Screen.swift", line: 3, column: 21))
        #expect(diagnostics.first?.message == "'flow_saved_succes' is not a catalogued event")
        #expect(diagnostics.first?.severity == .error)
    }

    @Test("an unknown literal that is not shaped like an event name is not echoed (it may be a value)")
    func unknownLiteralNotEchoed() {
        let diagnostics = lint(#"    analytics.track("someone@example.com", properties: [:])"#)
        #expect(diagnostics.map(\.rule) == [.unknownEvent])
        #expect(diagnostics.first?.message == "this literal is not a catalogued event")
    }

    @Test("a disabled placeholder is an error naming where it comes from")
    func placeholder() {
        let diagnostics = lint(#"analytics.track("purchase_started", properties: ["plan": "annual"])"#)
        #expect(diagnostics.map(\.rule) == [.eventDisabled])
        #expect(diagnostics.first?.message == "'purchase_started' is a disabled placeholder from CH08 §9")
    }

    @Test("an interpolated or computed event name is an error pointing to the typed API")
    func dynamicNames() {
        #expect(findings("""
            analytics.track("flow_\\(name)")
            analytics.track(name, properties: [:])
            analytics.track("flow_" + name, properties: [:])
            analytics.track(String(describing: name))
            """) == ["dynamic_event_name@3", "dynamic_event_name@4", "dynamic_event_name@5", "dynamic_event_name@6"])
        #expect(lint("analytics.track(name)").first?.hint.contains("track(AppOpen(...))") == true)
    }

    @Test("a generated event type counts as its event; labels are its properties")
    func typedAPI() {
        #expect(findings("analytics.track(AppOpen(startType: .cold, launchSource: .direct))") == [])
        #expect(findings("analytics.track(Events.FlowSavedSuccess(flowId: id, nodesCount: 3))") == [])
        let result = standardLinter.lint(source: "track(AppOpen(startType: .cold, launchSource: .push))", path: "A.swift")
        #expect(result.emissions.map(\.event) == ["app_open"])
    }

    @Test("a generated-looking type with no catalogued event is an error; a typed placeholder too")
    func unknownTypedEvents() {
        let diagnostics = lint("analytics.track(LegacyExport(format: .csv))")
        #expect(diagnostics.map(\.rule) == [.unknownEvent])
        #expect(diagnostics.first?.message == "'LegacyExport' is not a generated event type: no catalogued event 'legacy_export'")
        #expect(findings("analytics.track(PurchaseStarted(plan: .annual))") == ["event_disabled@3"])
    }

    @Test("a typed label that is not a property of the event, or names PII, is an error")
    func typedLabels() {
        #expect(findings("""
            analytics.track(AppOpen(startType: .cold, launchSource: .direct, colour: .red))
            analytics.track(AppOpen(startType: .cold, launchSource: .direct, userEmail: email))
            analytics.track(ScreenViewed(screenName: "home/demo"))
            """) == ["unknown_property@3", "pii_key@4"])
    }

    @Test("calls with other names, and track calls without arguments, are not analytics calls")
    func otherCalls() {
        #expect(findings("""
            logger.log("whatever", properties: ["user_email": email])
            gesture.track()
            """) == [])
    }

    @Test("emissions are recorded for enabled events and placeholders, not for unknown ones")
    func emissions() {
        let source = """
            track("app_open", properties: [:])
            track("purchase_started", properties: [:])
            track("no_such_event", properties: [:])
            """
        let result = standardLinter.lint(source: source, path: "A.swift")
        #expect(result.emissions.map(\.event) == ["app_open", "purchase_started"])
        #expect(result.emissions.map(\.location.line) == [1, 2])
    }
}

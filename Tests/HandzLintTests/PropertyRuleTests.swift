import HandzLint
import HandzTestSupport
import Testing

/// CH33 §6, §8.1: only declared properties, and no key that names personal data.
@Suite struct PropertyRuleTests {
    @Test("declared and common properties pass; screen_name is a reviewed identifier, not a name")
    func declaredProperties() {
        #expect(findings("""
            analytics.track("flow_saved_success", properties: [
                "flow_id": id, "nodes_count": 3, "screen_name": "flows/builder", "entry_point": "home",
            ])
            """) == [])
    }

    @Test("a key the event does not declare is an error listing what it declares")
    func undeclared() {
        let diagnostics = lint(#"analytics.track("app_open", properties: ["start_type": "cold", "colour": "red"])"#)
        #expect(diagnostics.map(\.rule) == [.unknownProperty])
        #expect(diagnostics.first?.message == "property 'colour' is not declared for 'app_open'")
        #expect(diagnostics.first?.hint.contains("start_type, launch_source") == true)
        #expect(diagnostics.first?.location.column == 64)
    }

    @Test("a disabled placeholder property is an error")
    func placeholderProperty() {
        let diagnostics = lint(#"analytics.track("app_open", properties: ["experiment_id": "exp_1"])"#)
        #expect(diagnostics.map(\.message) == ["property 'experiment_id' is a disabled placeholder"])
    }

    @Test("a key that fails the PII key lint is an error saying which token matched", arguments: [
        ("user_email", "email"), ("phone", "phone"), ("first_name", "name"), ("move_notes", "notes"), ("flow_description", "description"),
    ])
    func piiKeys(key: String, token: String) {
        let diagnostics = lint("analytics.track(\"flow_saved_success\", properties: [\"\(key)\": 1])")
        #expect(diagnostics.map(\.rule) == [.piiKey])
        #expect(diagnostics.first?.message == "property key '\(key)' contains the PII token '\(token)'")
    }

    @Test("a key that is itself an email address is flagged without printing it")
    func valueLikeKey() {
        let diagnostics = lint(#"analytics.track("app_open", properties: ["bob@example.com": 1])"#)
        #expect(diagnostics.map(\.message) == ["property key looks like an email address"])
    }

    @Test("PII keys are checked on unknown events too")
    func piiKeyOnUnknownEvent() {
        #expect(findings(#"analytics.track("no_such_event", properties: ["user_email": email])"#) == ["unknown_event@3", "pii_key@3"])
    }

    @Test("properties that are not a dictionary literal, or keys that are not literals, are errors")
    func dynamicProperties() {
        #expect(findings("""
            analytics.track("app_open", properties: props)
            analytics.track("app_open", properties: ["start_type": "cold", name: "x"])
            analytics.track("app_open", properties: [:])
            """) == ["dynamic_properties@3", "dynamic_properties@4"])
    }
}

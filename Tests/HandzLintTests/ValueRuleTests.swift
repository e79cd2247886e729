import HandzLint
import HandzTestSupport
import Testing

/// CH33 §1 "no PII", §13 "No PII leakage confirmed by automated lint": literal values in
/// analytics calls go through the same value scan as the validator.
@Suite struct ValueRuleTests {
    @Test("a literal that looks like personal data is an error that never prints it", arguments: [
        ("bob@example.com", "an email address"), ("+1 555 010 9999", "a phone number"), ("(555) 010-9999", "a phone number"),
        ("4111 1111 1111 1111", "a card-like number"), ("192.168.10.20", "an IP address"),
    ])
    func flagged(literal: String, kind: String) {
        let diagnostics = lint("analytics.track(\"screen_viewed\", properties: [\"screen_name\": \"\(literal)\"])")
        #expect(diagnostics.map(\.rule) == [.piiValue])
        #expect(diagnostics.first?.message == "string literal looks like \(kind)")
        #expect(diagnostics.allSatisfy { !$0.formatted.contains(literal) })
    }

    @Test("UUIDs, route ids, enum values and counts are fine — even a UUID whose digits read like a phone number", arguments: [
        "0190a5e2-6c1d-7b3e-9f00-401234567890", "0190a5e2-6c1d-7b3e-9f00-4c2a1b3d5e6f", "flows/builder", "cold", "2026-03-01T12:00:00Z",
    ])
    func notFlagged(literal: String) {
        #expect(findings("analytics.track(\"screen_viewed\", properties: [\"screen_name\": \"\(literal)\"])") == [])
    }

    @Test("literals are found inside expressions and inside typed API arguments")
    func nested() {
        #expect(findings("""
            analytics.track("screen_viewed", properties: ["screen_name": flag ? "home/demo" : "bob@example.com"])
            analytics.track(ScreenViewed(screenName: "bob@example.com"))
            analytics.track("screen_viewed", properties: ["screen_name": "contact \\(name) at bob@example.com"])
            """) == ["pii_value@3", "pii_value@4", "pii_value@5"])
    }

    @Test("escapes are resolved before the scan")
    func escapes() {
        #expect(findings(#"analytics.track("screen_viewed", properties: ["screen_name": "bob\u{40}example.com"])"#) == ["pii_value@3"])
    }

    @Test("string literals outside analytics calls are not the lint's business")
    func outsideCalls() {
        #expect(findings("""
            let support = "support@example.com"
            analytics.track("app_open", properties: ["start_type": "cold", "launch_source": "direct"])
            """) == [])
    }
}

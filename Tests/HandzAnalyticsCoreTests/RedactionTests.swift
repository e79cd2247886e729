import Foundation
import HandzAnalyticsCore
import HandzTestSupport
import Testing

/// No rejected value ever reaches a message or a path (it may be PII): messages are built from
/// codes and catalog facts only, and unreviewed keys are redacted from paths.
@Suite struct RedactionTests {
    static let sentinel = "SENTINEL9e7"

    /// An event with the sentinel planted in every kind of wrong place.
    static func poisonedEvents() -> [String] {
        let s = sentinel
        var events: [String] = []
        for key in ["user_state", "locale", "timezone", "session_id", "event_time_utc", "app_version", "event_name"] {
            var event = EventBuilder("app_open")
            event[key] = "\(s)@example.com"
            events.append(event.json)
        }
        var property = EventBuilder("app_open")
        property.setProperty("screen_name", "\(s)/5551234567")
        events.append(property.json)
        var unknownKey = EventBuilder("app_open")
        unknownKey.setProperty("\(s)_email", "\(s)")
        events.append(unknownKey.json)
        var oddKey = EventBuilder("app_open")
        oddKey.setProperty("\(s) name with spaces", "x")
        events.append(oddKey.json)
        var nested = EventBuilder("app_open")
        nested.setProperty("note", ["\(s)": ["\(s)@example.com"]])
        events.append(nested.json)
        events.append(EventBuilder("app_open").json.replacingOccurrences(of: "\"properties\":{", with: "\"\(s)\":{\"\(s)\":1},\"properties\":{"))
        return events
    }

    @Test("no message or path contains a rejected value or unreviewed key")
    func messagesNeverEchoValues() {
        var validator = makeValidator()
        for event in Self.poisonedEvents() {
            let result = validator.validate(event)
            #expect(!result.isAccepted)
            for issue in result.issues {
                #expect(!issue.message.contains(Self.sentinel), "\(issue.code)")
                #expect(!issue.path.contains(Self.sentinel), "\(issue.code)")
                #expect(!issue.message.contains("example.com"))
            }
        }
    }

    @Test("plain snake_case keys are named in paths; anything else becomes *")
    func keyRedaction() {
        var event = EventBuilder("app_open")
        event.setProperty("retry_count", 1)
        event.setProperty("Retry Count", 1)
        event.setProperty("call_5551234567", 1)
        let paths = verdict(event).issues.map(\.path)
        #expect(paths.contains("/properties/retry_count"))
        #expect(paths.filter { $0 == "/properties/*" }.count >= 2)
        #expect(!paths.contains { $0.contains("5551234567") })
    }
}

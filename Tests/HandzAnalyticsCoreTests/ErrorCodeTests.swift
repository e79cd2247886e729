import Foundation
import HandzAnalyticsCore
import HandzTestSupport
import Testing

/// One test per error code: the exact code and JSON-pointer path for a single broken rule.
@Suite struct ErrorCodeTests {
    @Test("malformed_json: syntax errors, bad UTF-8, control characters, bad escapes")
    func malformedJSON() {
        let valid = EventBuilder("app_open").json
        let inputs: [[UInt8]] = [
            Array(valid.dropLast().utf8),                          // truncated
            Array((valid + "x").utf8),                             // trailing garbage
            Array(valid.replacingOccurrences(of: ":", with: "=").utf8),
            Array("{\"event_name\":\"app\u{01}open\"}".utf8),      // raw control character
            Array("{\"event_name\":\"\\x41\"}".utf8),              // unknown escape
            Array("{\"event_name\":\"\\ud800\"}".utf8),            // lone surrogate
            Array("{\"event_name\":\"\\udc00\\ud800\"}".utf8),     // reversed pair
            [UInt8]("{\"event_name\":\"".utf8) + [0xC0, 0x80] + [UInt8]("\"}".utf8), // overlong NUL
            [UInt8]("{\"event_name\":\"".utf8) + [0xED, 0xA0, 0x80] + [UInt8]("\"}".utf8), // encoded surrogate
            [UInt8]("{\"event_name\":\"".utf8) + [0xF5, 0x80, 0x80, 0x80] + [UInt8]("\"}".utf8), // above U+10FFFF
            [UInt8]("{\"event_name\":\"".utf8) + [0xE2, 0x82] + [UInt8]("\"}".utf8), // truncated sequence
            Array("{\"a\":01}".utf8), Array("{\"a\":1.}".utf8), Array("{\"a\":-}".utf8), Array("{\"a\":tru}".utf8),
            Array("{\"a\":[1,]}".utf8), Array("{\"a\":1,}".utf8), Array("{,}".utf8), Array("{\"a\" 1}".utf8),
            Array("".utf8), Array("   ".utf8),
        ]
        for input in inputs {
            var validator = makeValidator()
            let result = validator.validate(input)
            #expect(result.codes == [.malformedJSON], "\(input.count) bytes → \(findings(result))")
        }
    }

    @Test("not_an_object: valid JSON that is not an object")
    func notAnObject() {
        for input in ["[]", "[{\"event_name\":\"app_open\"}]", "\"app_open\"", "42", "true", "null", " [1] "] {
            #expect(findings(verdict(input)) == ["not_an_object "], "\(input)")
        }
    }

    @Test("duplicate_key: at the top level, inside properties, and through an escape")
    func duplicateKey() {
        let valid = EventBuilder("app_open").json
        let topLevel = valid.replacingOccurrences(of: "\"platform\":\"iOS\"", with: "\"platform\":\"iOS\",\"platform\":\"iOS\"")
        #expect(findings(verdict(topLevel)) == ["duplicate_key /platform"])
        let escaped = valid.replacingOccurrences(of: "\"platform\":\"iOS\"", with: "\"platform\":\"iOS\",\"\\u0070latform\":\"iOS\"")
        #expect(findings(verdict(escaped)) == ["duplicate_key /platform"])
        let inProperties = valid.replacingOccurrences(of: "\"properties\":{", with: "\"properties\":{\"start_type\":\"cold\",")
        #expect(findings(verdict(inProperties)) == ["duplicate_key /properties/start_type"])
        let properties = valid.replacingOccurrences(of: "\"platform\":\"iOS\"", with: "\"platform\":\"iOS\",\"properties\":{}")
        #expect(verdict(properties).codes.contains(.duplicateKey))
    }

    @Test("too_large: over the byte limit, or nested beyond the scan depth")
    func tooLarge() {
        var event = EventBuilder("app_open")
        event.setProperty("screen_name", String(repeating: "a", count: 40_000))
        #expect(findings(verdict(event)) == ["too_large "])
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let nested = EventBuilder("app_open").json.replacingOccurrences(of: "\"properties\":{", with: "\"properties\":{\"x\":\(deep),")
        #expect(verdict(nested).codes == [.tooLarge])
    }

    @Test("unknown_event and event_disabled")
    func eventName() {
        var unknown = EventBuilder("app_open")
        unknown["event_name"] = "app_opened_twice"
        #expect(findings(verdict(unknown)) == ["unknown_event /event_name"])
        var disabled = EventBuilder("restore_clicked")
        disabled["event_name"] = "restore_clicked"
        #expect(findings(verdict(disabled)) == ["event_disabled /event_name"])
    }

    @Test("missing_property: every required global, a required event property, the properties object",
          arguments: ["event_id", "event_name", "event_time_utc", "app_version", "build_number", "platform", "os_version",
                      "device_model", "locale", "timezone", "session_id", "install_id", "user_state", "analytics_opt_in", "network_state"])
    func missingGlobal(key: String) {
        var event = EventBuilder("app_open")
        event[key] = nil
        #expect(findings(verdict(event)) == ["missing_property /\(key)"])
    }

    @Test("missing_property inside properties and for the properties object")
    func missingEventProperty() {
        var event = EventBuilder("flow_saved_success")
        event.setProperty("nodes_count", nil)
        #expect(findings(verdict(event)) == ["missing_property /properties/nodes_count"])
        var noProperties = EventBuilder("app_open")
        noProperties["properties"] = nil
        #expect(findings(verdict(noProperties)) == ["missing_property /properties"])
        // user_id is optional: a guest's event carries none.
        var guest = EventBuilder("app_open")
        guest["user_id"] = nil
        #expect(verdict(guest).isAccepted)
    }

    @Test("unknown_property: unreviewed keys, misplaced keys, keys another event declares, placeholder properties")
    func unknownProperty() {
        var extra = EventBuilder("app_open")
        extra.setProperty("retry_count", 3)
        #expect(findings(verdict(extra)) == ["unknown_property /properties/retry_count"])
        var topLevel = EventBuilder("app_open")
        topLevel["debug"] = true
        #expect(findings(verdict(topLevel)) == ["unknown_property /debug"])
        var misplaced = EventBuilder("app_open")
        misplaced.setProperty("install_id", misplaced["install_id"])
        #expect(findings(verdict(misplaced)) == ["unknown_property /properties/install_id"])
        var wrongEvent = EventBuilder("app_open")
        wrongEvent.setProperty("nodes_count", 3)
        #expect(findings(verdict(wrongEvent)) == ["unknown_property /properties/nodes_count"])
        var placeholder = EventBuilder("app_open")
        placeholder.setProperty("experiment_id", "onboarding_v2")
        #expect(findings(verdict(placeholder)) == ["unknown_property /properties/experiment_id"])
        // The common properties are allowed on every event.
        var common = EventBuilder("app_open")
        common.setProperty("screen_name", "auth/welcome")
        common.setProperty("entry_point", "push")
        #expect(verdict(common).isAccepted)
    }

    @Test("type_mismatch: wrong JSON types, null, fractions on integers, containers")
    func typeMismatch() {
        let cases: [(String, Any, String)] = [
            ("foreground_duration_ms", "1200", "/properties/foreground_duration_ms"),
            ("foreground_duration_ms", NSNullValue.null, "/properties/foreground_duration_ms"),
            ("foreground_duration_ms", [1], "/properties/foreground_duration_ms"),
            ("open_screens_count", true, "/properties/open_screens_count"),
            ("screen_name", 5, "/properties/screen_name"),
        ]
        for (key, value, path) in cases {
            var event = EventBuilder("app_background")
            event.setProperty(key, value is NSNullValue ? nil : value)
            if value is NSNullValue {
                let json = event.json.replacingOccurrences(of: "\"properties\":{", with: "\"properties\":{\"\(key)\":null,")
                #expect(findings(verdict(json)) == ["type_mismatch \(path)"])
            } else {
                #expect(findings(verdict(event)) == ["type_mismatch \(path)"], "\(key)")
            }
        }
        for written in ["3.0", "3e0", "30E-1"] {
            let fraction = EventBuilder("app_background").json
                .replacingOccurrences(of: #""open_screens_count":\d+"#, with: "\"open_screens_count\":\(written)", options: .regularExpression)
            #expect(findings(verdict(fraction)) == ["type_mismatch /properties/open_screens_count"], "\(written)")
        }
        var notObject = EventBuilder("app_open")
        notObject["properties"] = [1, 2]
        #expect(findings(verdict(notObject)) == ["type_mismatch /properties"])
        var optIn = EventBuilder("app_open")
        optIn["analytics_opt_in"] = "true"
        #expect(findings(verdict(optIn)) == ["type_mismatch /analytics_opt_in"])
    }

    @Test("invalid_uuid: bad shape, nil UUID, version 0, wrong variant; uppercase is accepted")
    func invalidUUID() {
        for value in ["not-a-uuid", "00000000-0000-0000-0000-000000000000", "0190a5e2-6c1d-0b3e-9f00-4c2a1b3d5e6f",
                      "0190a5e2-6c1d-7b3e-cf00-4c2a1b3d5e6f", "0190a5e26c1d7b3e9f004c2a1b3d5e6f", "0190a5e2-6c1d-7b3e-9f00-4c2a1b3d5e6", "0190a5e2-6c1d-7b3e-9f00-4c2a1b3d5e6g"] {
            var event = EventBuilder("app_open")
            event["session_id"] = value
            #expect(verdict(event).codes.contains(.invalidUUID), "\(value)")
            #expect(verdict(event).issues.first?.path == "/session_id")
        }
        var upper = EventBuilder("app_open")
        upper["session_id"] = "0190A5E2-6C1D-7B3E-9F00-4C2A1B3D5E6F"
        #expect(verdict(upper).isAccepted)
    }

    /// CH33 §1, §3.1: identifiers are random. A name-derived UUID can carry a hash of an email
    /// (`uuid5(NAMESPACE_DNS, "someone@example.com")`, synthetic), a version 1 one a MAC address.
    @Test("invalid_uuid: non-random versions (1 MAC-based, 3 and 5 name-derived) in every id field", arguments: [
        "0190a5e2-6c1d-1b3e-9f00-4c2a1b3d5e6f", "428b4710-5599-3a87-b1e3-a11b9bd54237", "f645eb06-8d1a-535f-8004-fbe42449c943",
    ])
    func nonRandomUUIDs(value: String) {
        for field in ["event_id", "session_id", "install_id", "user_id"] {
            var event = EventBuilder("app_open")
            event[field] = value
            if field == "user_id" { event["user_state"] = "free" }
            #expect(findings(verdict(event)) == ["invalid_uuid /\(field)"], "\(field)")
        }
        var save = EventBuilder("flow_saved_success")
        save.setProperty("flow_id", value)
        #expect(findings(verdict(save)) == ["invalid_uuid /properties/flow_id"])
    }

    /// CH33 §3.2 types build_number "string/int".
    @Test("build_number: a string, or a non-negative integer of at most nine digits")
    func buildNumberStringOrInteger() {
        for accepted: Any in ["418", "2026.3.1", 418, 0, 999_999_999] {
            var event = EventBuilder("app_open")
            event["build_number"] = accepted
            #expect(verdict(event).isAccepted, "\(accepted)")
        }
        for refused: Any in [-1, 1_000_000_000, 4.5, true] {
            var event = EventBuilder("app_open")
            event["build_number"] = refused
            #expect(findings(verdict(event)) == ["type_mismatch /build_number"], "\(refused)")
        }
        var exponent = EventBuilder("app_open")
        exponent["build_number"] = 418
        #expect(findings(verdict(exponent.json.replacingOccurrences(of: "\"build_number\":418", with: "\"build_number\":4.18e2"))) == ["type_mismatch /build_number"])
    }

    /// CH33 §3.2 "Optional Common Properties": duration_ms, error_code and gate_name may ride on
    /// any event, with their catalogued types and closed sets.
    @Test("duration_ms, error_code and gate_name are accepted on any event, and still checked")
    func optionalCommonProperties() {
        var event = EventBuilder("app_open")
        event.setProperty("duration_ms", 1_250)
        event.setProperty("error_code", "ERR-031")
        event.setProperty("gate_name", "branch_limit")
        #expect(verdict(event).isAccepted)
        var negative = EventBuilder("app_open")
        negative.setProperty("duration_ms", -1)
        #expect(findings(verdict(negative)) == ["out_of_range /properties/duration_ms"])
        var unknownGate = EventBuilder("screen_viewed")
        unknownGate.setProperty("gate_name", "not_a_gate")
        #expect(findings(verdict(unknownGate)) == ["invalid_enum /properties/gate_name"])
        var text = EventBuilder("app_open")
        text.setProperty("error_code", "Something went wrong")
        #expect(findings(verdict(text)) == ["invalid_enum /properties/error_code"])
    }

    @Test("invalid_enum: values outside the closed set, including case variants and per-event narrowing")
    func invalidEnum() {
        for value in ["platinum", "Guest", "", "guest "] {
            var event = EventBuilder("app_open")
            event["user_state"] = value
            #expect(findings(verdict(event)) == ["invalid_enum /user_state"], "\(value)")
        }
        // entry_point is narrowed to first_launch|logout|skip_signup on guest_mode_entered.
        var narrowed = EventBuilder("guest_mode_entered")
        narrowed.setProperty("entry_point", "paywall")
        #expect(findings(verdict(narrowed)) == ["invalid_enum /properties/entry_point"])
    }

    @Test("invalid_timestamp: must be a real UTC date-time in 2000-2099")
    func invalidTimestamp() {
        let invalid = ["2026-02-29T10:00:00Z", "2026-04-31T10:00:00Z", "2026-03-01T24:00:00Z", "2026-03-01T10:60:00Z",
                       "2026-03-01T10:00:60Z", "2026-03-01T10:00:00+02:00", "2026-03-01T10:00:00z", "2026-03-01 10:00:00Z",
                       "2026-03-01T10:00Z", "2026-03-01T10:00:00.1234Y", "1999-12-31T23:59:59Z", "2026-03-01T10:00:00",
                       "2026-03-01T10:00:00.Z", "2026-13-01T10:00:00Z"]
        for value in invalid {
            var event = EventBuilder("app_open")
            event["event_time_utc"] = value
            #expect(findings(verdict(event)) == ["invalid_timestamp /event_time_utc"], "\(value)")
        }
        // An invalid value is also scanned for PII: ten fraction digits read as a phone number.
        var digits = EventBuilder("app_open")
        digits["event_time_utc"] = "2026-03-01T10:00:00.1234567890Z"
        #expect(findings(verdict(digits)) == ["invalid_timestamp /event_time_utc", "pii_value /event_time_utc"])
        for value in ["2028-02-29T10:00:00Z", "2000-02-29T00:00:00Z", "2026-03-01T10:00:00.123456789Z", "2026-03-01T10:00:00+00:00", "2099-12-31T23:59:59.5Z"] {
            var event = EventBuilder("app_open")
            event["event_time_utc"] = value
            #expect(verdict(event).isAccepted, "\(value)")
        }
    }

    @Test("invalid_format: each declared format rejects what does not match it")
    func invalidFormat() {
        let cases: [(key: String, value: String)] = [
            ("app_version", "v1.4"), ("app_version", "1.4.2-beta"), ("app_version", "01.4"), ("build_number", "4a"),
            ("os_version", "Android 14"), ("device_model", "Pixel 8"), ("locale", "english"), ("locale", "en-US"),
            ("timezone", "Mars/Olympus_Mons"), ("timezone", "america/new_york"),
        ]
        for (key, value) in cases {
            var event = EventBuilder("app_open")
            event[key] = value
            #expect(findings(verdict(event)) == ["invalid_format /\(key)"], "\(key)")
        }
        var route = EventBuilder("app_open")
        route.setProperty("screen_name", "Auth/Welcome")
        #expect(findings(verdict(route)) == ["invalid_format /properties/screen_name"])
    }

    @Test("out_of_range: above the maximum, below the minimum, beyond Int64")
    func outOfRange() {
        for value in ["11", "-1", "99999999999999999999", "-99999999999999999999"] {
            let json = EventBuilder("builder_edge_created").json
                .replacingOccurrences(of: #""branch_index":\d+"#, with: "\"branch_index\":\(value)", options: .regularExpression)
            #expect(findings(verdict(json)) == ["out_of_range /properties/branch_index"], "\(value)")
        }
        var trial = EventBuilder("trial_started")
        trial.setProperty("trial_days", 14)
        #expect(findings(verdict(trial)) == ["out_of_range /properties/trial_days"])
    }

    @Test("pii_key: denied tokens and value-like keys are flagged on top of unknown_property")
    func piiKey() {
        for key in ["user_email", "phone_number", "opponent_name", "move_notes", "ip", "home_address"] {
            var event = EventBuilder("app_open")
            event.setProperty(key, true)
            #expect(findings(verdict(event)) == ["pii_key /properties/\(key)", "unknown_property /properties/\(key)"].sorted(), "\(key)")
        }
        // Not snake_case, so the key is redacted from the path.
        var camel = EventBuilder("app_open")
        camel.setProperty("emailAddress", true)
        #expect(findings(verdict(camel)) == ["pii_key /properties/*", "unknown_property /properties/*"])
        var emailKey = EventBuilder("app_open")
        emailKey.setProperty("someone@example.com", true)
        #expect(findings(verdict(emailKey)) == ["pii_key /properties/*", "unknown_property /properties/*"])
    }

    @Test("pii_value: phone, card, email and IP patterns inside strings, even when the format matches")
    func piiValue() {
        var phone = EventBuilder("app_open")
        phone.setProperty("screen_name", "profile/5551234567")
        #expect(findings(verdict(phone)) == ["pii_value /properties/screen_name"])
        var card = EventBuilder("move_selected")
        card.setProperty("move_canonical_id", "card_4111111111111111")
        #expect(findings(verdict(card)) == ["pii_value /properties/move_canonical_id"])
        var dotted = EventBuilder("app_open")
        dotted["app_version"] = "555.123.4567"
        #expect(findings(verdict(dotted)) == ["pii_value /app_version"])
        var ip = EventBuilder("app_open")
        ip["app_version"] = "10.0.0.1"
        #expect(findings(verdict(ip)) == ["invalid_format /app_version", "pii_value /app_version"])
        var email = EventBuilder("app_open")
        email["user_state"] = "someone@example.com"
        #expect(findings(verdict(email)) == ["invalid_enum /user_state", "pii_value /user_state"])
        var nested = EventBuilder("app_open")
        nested.setProperty("contact", ["primary": "someone@example.com"])
        #expect(verdict(nested).codes == [.piiKey, .piiValue, .unknownProperty])
    }

    @Test("opted_out: analytics_opt_in false is never accepted")
    func optedOut() {
        var event = EventBuilder("app_open")
        event["analytics_opt_in"] = false
        #expect(findings(verdict(event)) == ["opted_out /analytics_opt_in"])
    }

    @Test("the error-code vocabulary is fixed")
    func vocabulary() {
        #expect(ValidationErrorCode.allCases.map(\.rawValue) == [
            "malformed_json", "not_an_object", "duplicate_key", "too_large", "unknown_event", "event_disabled",
            "missing_property", "unknown_property", "type_mismatch", "invalid_uuid", "invalid_enum", "invalid_timestamp",
            "invalid_format", "out_of_range", "pii_key", "pii_value", "opted_out", "unknown_catalog_version", "catalog_version_retired",
        ])
    }
}

/// Marker for a JSON null in the test table above.
enum NSNullValue { case null }

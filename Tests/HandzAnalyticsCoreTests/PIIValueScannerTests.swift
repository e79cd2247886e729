import HandzAnalyticsCore
import HandzSynthetic
import HandzTestSupport
import Testing

@Suite struct PIIValueScannerTests {
    @Test("flags email addresses, phone numbers, card-like numbers and IP addresses", arguments: [
        ("someone@example.com", PIIKind.emailAddress), ("first.last+tag@mail.example.co.uk", .emailAddress),
        ("+1 555 123 4567", .phoneNumber), ("+44 (20) 7946 0958", .phoneNumber), ("(555) 123-4567", .phoneNumber),
        ("555-123-4567", .phoneNumber), ("555.123.4567", .phoneNumber), ("call_5551234567", .phoneNumber),
        ("4111 1111 1111 1111", .cardNumber), ("4111-1111-1111-1111", .cardNumber), ("4111111111111111", .cardNumber),
        ("192.168.1.20", .ipAddress), ("host 10.0.0.1 up", .ipAddress), ("2001:db8::1", .ipAddress),
        ("fe80:0:0:0:200:f8ff:fe21:67cf", .ipAddress),
    ])
    func truePositives(value: String, kind: PIIKind) {
        #expect(PIIValueScanner.scan(value) == kind, "\(value)")
    }

    @Test("leaves identifiers, versions, timestamps and counts alone", arguments: [
        "0190a5e2-6c1d-7b3e-9f00-4c2a1b3d5e6f", "2026-03-01T12:00:00.123Z", "2026-03-01T12:00:00+00:00", "1.4.2",
        "418", "2026.3.1", "iOS 18.6.1", "iPhone15,2", "en_US", "America/New_York", "Etc/GMT+10", "auth/welcome",
        "armbar_from_guard", "ERR-031", "monthly_9_99", "123456789", "12:30:45", "a::b-not-ip?", "version 1.2.3.4.5",
        "user@", "@handle", "x@y",
    ])
    func falsePositives(value: String) {
        if value == "a::b-not-ip?" {
            // `a::b` is a valid IPv6 abbreviation; pin that the scanner treats it as one.
            #expect(PIIValueScanner.scan(value) == .ipAddress)
        } else {
            #expect(PIIValueScanner.scan(value) == nil, "\(value)")
        }
    }

    /// `StringFormat.canCarryPII == false` claims no value that matches the format can trip a
    /// detector, which is why the validator skips the scan for them. Check it on many valid values.
    @Test("formats marked PII-free really are", arguments: StringFormat.allCases.filter { !$0.canCarryPII })
    func piiFreeFormats(format: StringFormat) {
        var random = SeededRandom(seed: 17)
        var values: [String] = []
        switch format {
        case .uuid:
            values = (0..<20_000).map { _ in SyntheticUUID.v4(&random) }
            // Random UUIDs can look like phone numbers — which is why they are not scanned:
            #expect(values.contains { PIIValueScanner.scan($0) != nil })
            return
        case .timestampUTC:
            values = (0..<20_000).map { _ in
                TimestampFormat.format(seconds: random.int(in: 946_684_800...4_102_444_799), nanoseconds: Int32(random.int(in: 0...999_999_999)), fractionDigits: random.pick([0, 3, 6, 9]))
            }
        case .ianaTimeZone:
            values = RepositoryCatalog.catalog.timeZones
        case .locale:
            let letters = Array("abcdefghijklmnopqrstuvwxyz")
            values = (0..<5_000).map { _ in
                String((0..<Int(random.int(in: 2...3))).map { _ in random.pick(letters) }) + random.pick(["", "_US", "_419", "_Hans_CN", "_Latn_RS"])
            }
        case .osVersion:
            values = (0..<5_000).map { _ in "\(random.pick(["iOS", "iPadOS"])) \(random.int(in: 0...99)).\(random.int(in: 0...99))" + (random.chance(0.5) ? ".\(random.int(in: 0...99))" : "") }
        case .deviceModel:
            values = (0..<100).flatMap { major in (0..<100).map { minor in "\(random.pick(["iPhone", "iPad", "iPod"]))\(major),\(minor)" } }
        default:
            Issue.record("unexpected format \(format)")
        }
        for value in values {
            #expect(format == .ianaTimeZone || format.matches(value), "\(value)")
            #expect(PIIValueScanner.scan(value) == nil, "\(format.rawValue): \(value)")
        }
    }

    @Test("formats marked PII-capable can carry a detectable value")
    func piiCapableFormats() {
        #expect(StringFormat.slug.matches("call_5551234567") && PIIValueScanner.scan("call_5551234567") != nil)
        #expect(StringFormat.routeID.matches("profile/5551234567") && PIIValueScanner.scan("profile/5551234567") != nil)
        #expect(StringFormat.appVersion.matches("555.123.4567") && PIIValueScanner.scan("555.123.4567") != nil)
        #expect(StringFormat.buildNumber.matches("555.123.4567") && PIIValueScanner.scan("555.123.4567") != nil)
    }

    /// Issue 21 §8: `slug` and `route_id` allow `_` and `/`, so each detector must read them as
    /// separators — every detector, with each separator the formats allow.
    @Test("phone, card, IP and email written with the formats' separators `_` and `/` are flagged", arguments: [
        ("settings/555_123_4567", PIIKind.phoneNumber), ("settings/555/123/4567", .phoneNumber), ("call_555_123_4567", .phoneNumber),
        ("card/4111_1111_1111_1111", .cardNumber), ("card/4111/1111/1111/1111", .cardNumber), ("c_4111_1111_1111_1111", .cardNumber),
        ("ip/192_168_1_10", .ipAddress), ("ip/192/168/1/10", .ipAddress), ("host_10_0_0_1", .ipAddress),
        ("u/john_doe_at_gmail_com", .emailAddress), ("u/john/doe/at/gmail/com", .emailAddress),
        ("john_doe_at_mail_example_co_uk", .emailAddress), ("jane_at_gmail_dot_com", .emailAddress),
        ("u/john_doe@gmail_com", .emailAddress), ("+44_20_7946_0958", .phoneNumber),
        // Deliberately: four numbers 0–255 between separators read as an IP address, whatever they mean.
        ("drill_10_20_30_40", .ipAddress), ("grid/1/2/3/4", .ipAddress),
    ])
    func formatSeparators(value: String, kind: PIIKind) {
        #expect(PIIValueScanner.scan(value) == kind, "\(value)")
    }

    @Test("slugs and routes with `_`, `/`, `at` and numbers that are not personal data stay accepted", arguments: [
        "look_at_me_now", "flow_at_home", "practice/at_home", "home/at/settings", "black_belt_demo_1", "step_2026_03_01",
        "monthly_9_99", "flows/edit/step_12", "drill_10_20_30", "v_1_4_2", "guard/at/mount/now",
    ])
    func formatSeparatorFalsePositives(value: String) {
        #expect(PIIValueScanner.scan(value) == nil, "\(value)")
    }

    @Test("the validator rejects a route value that hides a phone number, card, IP or address behind `_` or `/`", arguments: [
        "settings/555_123_4567", "card/4111_1111_1111_1111", "ip/192_168_1_10", "u/john_doe_at_gmail_com",
    ])
    func validatorRejectsSeparatedPII(value: String) {
        #expect(StringFormat.routeID.matches(value))
        var event = EventBuilder("screen_viewed")
        event.setProperty("screen_name", value)
        #expect(findings(verdict(event)) == ["pii_value /properties/screen_name"])
    }
}

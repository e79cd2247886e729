import HandzAnalyticsCore
import HandzTestSupport
import Testing

/// Issue 32 item 5: the PII value scan recognises phone numbers by digit count and grouping the way
/// international numbering does (E.164 lengths, trunk prefix `0`, international prefix `+`/`00`),
/// not by one country's grouping. Every number here is synthetic: Ofcom's drama ranges
/// (020 7946 0xxx, 0113 496 0xxx, 07700 900xxx), ARCEP's fiction ranges (01 99 00, 06 39 98),
/// ACMA's (02 5550, 0491 570 156), NANP 555-01xx, and obvious sequences elsewhere.
@Suite struct PhoneNumberScanTests {
    /// A phone number as its digit groups, in the grouping people of that country write it.
    struct Number: CustomTestStringConvertible, Sendable {
        let country: String
        let groups: [String]
        var testDescription: String { "\(country) \(groups.joined(separator: " "))" }
    }

    static let numbers: [Number] = [
        // National forms with the trunk prefix 0 (Italy's leading 0 is part of the number, same shape).
        .init(country: "UK London", groups: ["020", "7946", "0958"]),
        .init(country: "UK Leeds", groups: ["0113", "496", "0960"]),
        .init(country: "UK mobile", groups: ["07700", "900123"]),
        .init(country: "Germany Berlin", groups: ["030", "1234567"]),
        .init(country: "Germany Berlin, 9 digits", groups: ["030", "123456"]),
        .init(country: "Germany mobile", groups: ["0151", "23456789"]),
        .init(country: "France Paris", groups: ["01", "99", "00", "12", "34"]),
        .init(country: "France mobile", groups: ["06", "39", "98", "12", "34"]),
        .init(country: "Italy Rome", groups: ["06", "1234", "5678"]),
        .init(country: "Italy Milan", groups: ["02", "1234567"]),
        .init(country: "Japan Tokyo", groups: ["03", "1234", "5678"]),
        .init(country: "Japan mobile", groups: ["090", "1234", "5678"]),
        .init(country: "Australia Sydney", groups: ["02", "5550", "4321"]),
        .init(country: "Australia mobile", groups: ["0491", "570", "156"]),
        .init(country: "India Delhi", groups: ["011", "2345", "6789"]),
        // National forms without a trunk prefix.
        .init(country: "Italy mobile", groups: ["333", "123", "4567"]),
        .init(country: "Spain Madrid", groups: ["912", "345", "678"]),
        .init(country: "Spain mobile", groups: ["612", "34", "56", "78"]),
        .init(country: "Spain Barcelona 2-3-2-2", groups: ["93", "412", "34", "56"]),
        .init(country: "India mobile", groups: ["98765", "43210"]),
        .init(country: "Brazil São Paulo mobile", groups: ["11", "91234", "5678"]),
        .init(country: "Brazil Rio", groups: ["21", "3123", "4567"]),
        .init(country: "NANP", groups: ["201", "555", "0123"]),
        .init(country: "NANP with 1", groups: ["1", "201", "555", "0123"]),
        // International forms.
        .init(country: "UK +44", groups: ["+44", "20", "7946", "0958"]),
        .init(country: "UK 0044", groups: ["0044", "20", "7946", "0958"]),
        .init(country: "UK 00 44", groups: ["00", "44", "7700", "900123"]),
        .init(country: "Germany +49", groups: ["+49", "151", "23456789"]),
        .init(country: "Germany 0049", groups: ["0049", "30", "1234567"]),
        .init(country: "France +33", groups: ["+33", "1", "99", "00", "12", "34"]),
        .init(country: "France 0033", groups: ["0033", "6", "39", "98", "12", "34"]),
        .init(country: "Japan +81", groups: ["+81", "3", "1234", "5678"]),
        .init(country: "Australia +61", groups: ["+61", "491", "570", "156"]),
        .init(country: "India 0091", groups: ["0091", "98765", "43210"]),
        .init(country: "Brazil +55", groups: ["+55", "11", "91234", "5678"]),
        .init(country: "Spain 0034", groups: ["0034", "612", "34", "56", "78"]),
        .init(country: "NANP 001", groups: ["001", "201", "555", "0123"]),
    ]

    /// The separators the scan treats as one: the ones people write (space, `-`, `.`) and the ones
    /// the `slug` and `route_id` formats allow (`_`, `/`).
    static let separators = [" ", "-", ".", "_", "/"]

    @Test("a phone number from any of these countries is flagged with every separator", arguments: numbers)
    func everySeparator(number: Number) {
        for separator in Self.separators {
            let value = number.groups.joined(separator: separator)
            #expect(PIIValueScanner.scan(value) == .phoneNumber, "\(value)")
        }
    }

    @Test("a phone number inside a route-like or slug-like value is flagged", arguments: numbers)
    func insideRouteLikeValues(number: Number) {
        for value in [
            "settings/" + number.groups.joined(separator: "_"), "contact/" + number.groups.joined(separator: "/"),
            "call_" + number.groups.joined(separator: "_"), "profile/step_2/" + number.groups.joined(separator: "_"),
        ] {
            #expect(PIIValueScanner.scan(value) == .phoneNumber, "\(value)")
        }
    }

    @Test("an area code in parentheses is read as the number's first group", arguments: [
        "(020) 7946 0958", "(020)7946-0958", "(11) 91234-5678", "(03) 1234-5678", "(201) 555-0123", "(0151) 23456789",
    ])
    func parenthesisedAreaCode(value: String) {
        #expect(PIIValueScanner.scan(value) == .phoneNumber, "\(value)")
    }

    @Test("the validator refuses a route value that hides a non-North-American number behind `_` or `/`", arguments: [
        "settings/020_7946_0958", "settings/07700_900123", "contact/030/1234567", "settings/01_99_00_12_34", "call/0044_20_7946_0958",
    ])
    func validatorRefuses(value: String) {
        #expect(StringFormat.routeID.matches(value))
        var event = EventBuilder("screen_viewed")
        event.setProperty("screen_name", value)
        #expect(findings(verdict(event)) == ["pii_value /properties/screen_name"])
    }

    @Test("dates, versions, build numbers, counts, short ids, timestamps, UUIDs and slugs with small numbers pass", arguments: [
        // Dates in every order and separator, alone, with a time, and two in a row.
        "2026_03_01", "2026-03-01", "2026.03.01", "2026/03/01", "01.03.2026", "03/01/2026", "01_03_2026", "1_3_2026",
        "20260301", "2026_03_01_12_30", "2026_03_01_12_30_45", "2026-03-01 12:30:45", "01.03.2026 09:15",
        "step_2026_03_01", "report_2026_03_01_to_2026_03_31", "2026_03_01_2026_03_31", "export/2026/03/01/0930",
        "season_2024_2025", "cohort_2019_2020_2021", "2024-2025-2026",
        // Versions and build numbers.
        "1.4.2", "10.15.7", "2026.3.1", "iOS 18.6.1", "v_1_4_2", "1.0.418", "20260301.1", "20260301.12", "1.0.20260301",
        "12345.678", "418",
        // Counts, prices, sizes, resolutions and round quantities.
        "123456789", "1000000", "monthly_9_99", "price_1999_2999", "drill_10_20_30", "drill_10_20_30_40_50",
        "step_11_12_13_14_15", "res_1920_1080", "video_1920_1080_60", "video_3840_2160_120", "series_100_200_300_400",
        "range_1000_2000_3000", "1_2_3_4_5_6_7_8_9_10",
        // Short ids, timestamps, UUIDs, clock times.
        "ERR-031", "id_4821", "a1b2c3d4", "2026-03-01T12:00:00.123Z", "2026-03-01T12:00:00.123456789Z",
        "2026-03-01T12:00:00.12345678Z", "2026-03-01T00:00:00+00:00", "20260301T120000Z", "12:30:45", "09:00-17:30",
        "0190a5e2-6c1d-7b3e-9f00-4c2a1b3d5e6f", "2a4a0f1a-7504-49c4-8d4b-c9e17ab0580e", "019c9ca0-6f53-7246-9091-15e2c15a3ef5",
        // Typical slugs and routes with a few small numbers.
        "flow_12_step_3", "lesson_07_part_2", "black_belt_demo_1", "flows/edit/step_12", "level_3_of_10", "top_100_moves",
        "week_01_day_05", "drills/2026/week_09", "00_12_34",
    ])
    func nonPersonalValuesPass(value: String) {
        #expect(PIIValueScanner.scan(value) == nil, "\(value)")
    }

    /// The boundary the scanner's doc comment states, pinned from both sides.
    @Test("the boundary: how many digits, which grouping, which prefix", arguments: [
        // Trunk prefix 0: 9 digits and more; 8 is a date or a short code.
        ("030_123456", PIIKind.phoneNumber), ("030_12345", nil), ("01_03_2026", nil), ("0123_4567", nil),
        // No prefix: 9 digits and more with a group of three or more; 8 digits (Denmark, Norway) pass,
        // and so do groups of two only (`step_11_12_13_14_15`).
        ("612_345_678", .phoneNumber), ("12 34 56 78", nil), ("1234_5678", nil), ("12_34_56_78_90", nil),
        // International 00: 7–15 digits after it, the country code starting 1–9.
        ("00_683_4002", .phoneNumber), ("00_00_12_34_56", nil), ("00_683_400", nil),
        // Round quantities: every group ends in 0.
        ("100_200_300_400", nil), ("100_200_300_401", .phoneNumber), ("00_10_20_30_40", nil),
        // Unbroken runs keep their own rule: 10–15 digits.
        ("612345678", nil), ("6123456789", .phoneNumber),
        // A calendar date splits a run: the digits after it are judged alone.
        ("2026_03_01_020_7946_0958", .phoneNumber), ("2026_03_01_12_34_56", nil),
        // A group touching `:` with a digit beyond is a clock time or a port, not a phone group;
        // `tel:` is not a clock.
        ("12:00_7946_0958", nil), ("08:15_123_4567", nil), ("tel:020-7946-0958", .phoneNumber),
        // Digits glued to letters stay a group unless the word is hexadecimal (a UUID, a hash).
        ("tel020-7946-0958", .phoneNumber), ("555-123-4567x89", .phoneNumber), ("ab12-4123-8123", nil),
        // A year next to a year is a range or list of years; one year alone stays a group.
        ("2019_2020_2021", nil), ("333_123_2026", .phoneNumber), ("020_2019_2020", nil),
        // Four numbers 0–255 are an IP address first, whatever else they could be.
        ("91_123_45_67", .ipAddress), ("91.123.45.67", .ipAddress), ("12_34_56_78", .ipAddress),
    ] as [(String, PIIKind?)])
    func boundary(value: String, expected: PIIKind?) {
        #expect(PIIValueScanner.scan(value) == expected, "\(value)")
    }
}

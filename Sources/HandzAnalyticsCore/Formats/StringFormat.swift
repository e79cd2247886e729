/// The declared formats a string property may have instead of a closed set of values. Each is a
/// narrow grammar, so no format can carry user-entered text (CH33 §1 "no free-form notes", §2.1).
///
/// Each format exists in exactly one place: the byte-level matcher here (what the validator runs)
/// and `pattern`, the equivalent ECMA-262 regular expression the JSON Schema export uses. A test
/// checks that the two agree.
public enum StringFormat: String, Sendable, CaseIterable {
    /// RFC 9562 UUID, 8-4-4-4-12 hex digits, version 4 or 7 (random), variant `10xx` (CH33 §1, §3.1).
    case uuid
    /// ISO-8601 date-time in UTC: `2026-03-01T12:00:00Z`, optional 1–9 fraction digits, `Z` or
    /// `+00:00`; a real calendar date in 2000–2099, seconds 00–59 (CH33 §3.2 `event_time_utc`).
    case timestampUTC = "timestamp_utc"
    /// A reviewed identifier token: `[a-z0-9][a-z0-9_]{0,63}`.
    case slug
    /// A screen route identifier (CH07 §8, CH04 §2): `auth/welcome`, `home/demo`.
    case routeID = "route_id"
    /// Marketing version: `1.4` or `1.4.2`, components 0–9999 without leading zeros.
    case appVersion = "app_version"
    /// Build number (CFBundleVersion): 1–3 dot-separated components of 1–9 digits.
    case buildNumber = "build_number"
    /// Locale identifier: `en_US`, `en`, `zh_Hans_CN`, `es_419`.
    case locale
    /// An IANA time zone name from the catalog's list (`America/New_York`, `UTC`).
    case ianaTimeZone = "iana_time_zone"
    /// `iOS 18.6` or `iPadOS 18.6.1`.
    case osVersion = "os_version"
    /// Hardware model identifier: `iPhone15,2`, `iPad13,4`, or a simulator's `arm64`/`x86_64`.
    case deviceModel = "device_model"

    /// The error code a mismatch is reported with.
    public var errorCode: ValidationErrorCode {
        switch self {
        case .uuid: .invalidUUID
        case .timestampUTC: .invalidTimestamp
        default: .invalidFormat
        }
    }

    /// Whether a value that matches this format can still contain something the PII value scan
    /// flags. Only then does the validator scan a matching value (it always scans a value that
    /// does not match). Where the grammar rules every detector out, scanning is skipped:
    /// - `uuid`: hex in fixed groups; the digit-run detectors would fire on about 1 in 280 random
    ///   UUIDs by coincidence (see ``PIIValueScanner``);
    /// - `timestamp_utc`, `locale`, `iana_time_zone`, `os_version`, `device_model`: no `@`, no `::`,
    ///   fewer than three dots, no `+` before seven digits, no digit run over 9 and no 3-3-4 digit
    ///   groups — no detector can match.
    /// `slug` and `route_id` admit digit runs (`5551234567`), `app_version` and `build_number`
    /// admit `555.123.4567`; those are scanned. `PIIValueScannerTests` checks both claims.
    public var canCarryPII: Bool {
        switch self {
        case .slug, .routeID, .appVersion, .buildNumber: true
        case .uuid, .timestampUTC, .locale, .ianaTimeZone, .osVersion, .deviceModel: false
        }
    }

    /// The JSON integers a property of this format also accepts, as their decimal text: CH33 §3.2
    /// types `build_number` "string/int", so a client may send `418` for `"418"`. The range is the
    /// format's own (1–9 digits), and the store keeps the value as text either way.
    public var integerForm: ClosedRange<Int64>? {
        self == .buildNumber ? 0...999_999_999 : nil
    }

    /// A short description for messages and docs (never includes a value).
    public var summary: String {
        switch self {
        case .uuid: "a random RFC 9562 UUID (8-4-4-4-12 hex, version 4 or 7)"
        case .timestampUTC: "an ISO-8601 UTC date-time (YYYY-MM-DDTHH:MM:SS[.fff]Z, a real date in 2000-2099)"
        case .slug: "a slug ([a-z0-9][a-z0-9_]{0,63})"
        case .routeID: "a route id (e.g. auth/welcome)"
        case .appVersion: "a marketing version (e.g. 1.4.2)"
        case .buildNumber: "a build number (1-3 dot-separated numbers)"
        case .locale: "a locale identifier (e.g. en_US)"
        case .ianaTimeZone: "an IANA time zone name from the catalog"
        case .osVersion: "an OS version (e.g. iOS 18.6)"
        case .deviceModel: "a hardware model identifier (e.g. iPhone15,2)"
        }
    }

    /// Valid examples, for docs and generated test events.
    public var examples: [String] {
        switch self {
        case .uuid: ["0190a5e2-6c1d-7b3e-9f00-4c2a1b3d5e6f"]
        case .timestampUTC: ["2026-03-01T12:00:00Z", "2026-03-01T12:00:00.123+00:00"]
        case .slug: ["black_belt_demo_1"]
        case .routeID: ["auth/welcome", "home/demo"]
        case .appVersion: ["1.4.2"]
        case .buildNumber: ["418"]
        case .locale: ["en_US", "pt_BR"]
        case .ianaTimeZone: ["America/New_York", "UTC"]
        case .osVersion: ["iOS 18.6"]
        case .deviceModel: ["iPhone15,2"]
        }
    }

    /// The equivalent ECMA-262 pattern for JSON Schema, anchored with `^…$`. (Validators built on
    /// Python's `re` — python-jsonschema, msgspec — let `$` match before a final newline, unlike
    /// ECMA-262; a lookahead would fix that but pushes Rust validators onto a backtracking engine
    /// several times slower. The HandzCatalog docs list this difference, "JSON Schema export".) `nil` for `iana_time_zone`, which
    /// exports as an `enum` of the catalog's list.
    public var pattern: String? {
        let body: String
        switch self {
        case .uuid:
            body = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[47][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}"
        case .timestampUTC:
            let longMonths = "20[0-9]{2}-(0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])"
            let shortMonths = "20[0-9]{2}-(0[469]|11)-(0[1-9]|[12][0-9]|30)"
            let february = "20[0-9]{2}-02-(0[1-9]|1[0-9]|2[0-8])"
            let leapDay = "20([02468][048]|[13579][26])-02-29"
            body = "(\(longMonths)|\(shortMonths)|\(february)|\(leapDay))T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|\\+00:00)"
        case .slug:
            body = "[a-z0-9][a-z0-9_]{0,63}"
        case .routeID:
            body = "[a-z][a-z0-9_]{0,31}(/[a-z0-9_]{1,32}){0,3}"
        case .appVersion:
            body = "(0|[1-9][0-9]{0,3})\\.(0|[1-9][0-9]{0,3})(\\.(0|[1-9][0-9]{0,3}))?"
        case .buildNumber:
            body = "[0-9]{1,9}(\\.[0-9]{1,9}){0,2}"
        case .locale:
            body = "[a-z]{2,3}(_[A-Z][a-z]{3})?(_([A-Z]{2}|[0-9]{3}))?"
        case .ianaTimeZone:
            return nil
        case .osVersion:
            body = "(iOS|iPadOS) [0-9]{1,2}\\.[0-9]{1,2}(\\.[0-9]{1,2})?"
        case .deviceModel:
            body = "((iPhone|iPad|iPod)[0-9]{1,2},[0-9]{1,2}|arm64|x86_64)"
        }
        return "^(" + body + ")$"
    }

    /// Whether the `n` bytes at `p` match this format. `iana_time_zone` needs the catalog's list
    /// and is checked by the compiled catalog instead; here it always fails.
    @inlinable
    public func matches(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        switch self {
        case .uuid: return UUIDFormat.matches(p, n)
        case .timestampUTC: return TimestampFormat.matches(p, n)
        case .slug: return SimpleFormats.slug(p, n)
        case .routeID: return SimpleFormats.routeID(p, n)
        case .appVersion: return SimpleFormats.appVersion(p, n)
        case .buildNumber: return SimpleFormats.buildNumber(p, n)
        case .locale: return SimpleFormats.locale(p, n)
        case .ianaTimeZone: return false
        case .osVersion: return SimpleFormats.osVersion(p, n)
        case .deviceModel: return SimpleFormats.deviceModel(p, n)
        }
    }

    /// Convenience for tests and tools.
    public func matches(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return false }
            return matches(UnsafeRawPointer(base), buffer.count)
        }
    }
}

/// The build-time lint's rules (CH33 §1, §8.1, §13). Each has a stable id — printed as
/// `[id]` in every diagnostic and used in `.handz-analytics.yml` to change its severity — and a
/// fix hint. The ids reuse the validator's codes where the rule is the same (`unknown_event`,
/// `pii_key`, …), so a developer meets one vocabulary at build time and at ingestion.
public enum LintRule: String, CaseIterable, Sendable, Comparable, Codable {
    /// CH33 §1, §6: an event name literal (or generated event type) that is not catalogued.
    case unknownEvent = "unknown_event"
    /// CH33 §6 Authority: a catalogued placeholder, disabled until it is enabled after review.
    case eventDisabled = "event_disabled"
    /// CH33 §8.1: an event name built at run time (interpolated or computed) cannot be checked.
    case dynamicEventName = "dynamic_event_name"
    /// CH33 §6, §8.1: a property key not declared for the event (or a disabled placeholder property).
    case unknownProperty = "unknown_property"
    /// CH33 §8.1: properties that are not a dictionary literal with literal keys cannot be checked.
    case dynamicProperties = "dynamic_properties"
    /// CH33 §8.1 "build-time lint rejects suspicious keys (email, phone, name, notes, description)".
    case piiKey = "pii_key"
    /// CH33 §1 "no PII", §13 "No PII leakage confirmed by automated lint": a literal value that
    /// looks like an email address, phone number, card number or IP address.
    case piiValue = "pii_value"
    /// CH33 §1 "No 'random logging' in code; dev logs must never ship to production".
    case randomLogging = "random_logging"

    public var id: String { rawValue }

    /// The severity a rule has unless `.handz-analytics.yml` says otherwise.
    public var defaultSeverity: LintSeverity {
        self == .randomLogging ? .warning : .error
    }

    /// The spec section behind the rule.
    public var specReference: String {
        switch self {
        case .unknownEvent, .eventDisabled: "CH33 §6"
        case .dynamicEventName, .unknownProperty, .dynamicProperties, .piiKey: "CH33 §8.1"
        case .piiValue: "CH33 §1, §13"
        case .randomLogging: "CH33 §1"
        }
    }

    /// One line saying what the rule rejects (for SARIF rule descriptions and the HandzLint docs, "Lint rules").
    public var summary: String {
        switch self {
        case .unknownEvent: "An event that is not in the catalog."
        case .eventDisabled: "A catalogued placeholder event, disabled until enabled after review."
        case .dynamicEventName: "An event name that is not a string literal (interpolated or computed)."
        case .unknownProperty: "A property key not declared for the event, or a disabled placeholder property."
        case .dynamicProperties: "Properties that are not a dictionary literal with string-literal keys."
        case .piiKey: "A property key that names personal data (a denied token such as email, phone, name)."
        case .piiValue: "A string literal that looks like an email address, phone number, card number or IP address."
        case .randomLogging: "print, NSLog, debugPrint, dump or os_log outside #if DEBUG in a file that emits analytics."
        }
    }

    /// How to fix a finding of this rule.
    public var hint: String {
        switch self {
        case .unknownEvent: "use an event from catalog/events/, or add the event to the catalog first"
        case .eventDisabled: "enable the event in the catalog after review, or remove the call"
        case .dynamicEventName: "use the generated typed API (track(AppOpen(...))) or a literal catalogued name"
        case .unknownProperty: "use a property the catalog declares for this event, or declare it in catalog/events/"
        case .dynamicProperties: "pass a dictionary literal with literal keys, or use the generated typed API"
        case .piiKey: "drop the property; only keys reviewed in catalog/privacy.yaml may contain such a token"
        case .piiValue: "never send personal data; send a catalogued value or a random UUID"
        case .randomLogging: "wrap it in #if DEBUG or remove it"
        }
    }

    public static func < (lhs: LintRule, rhs: LintRule) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How a finding is reported: an error fails the build, a warning is shown in place.
public enum LintSeverity: String, Sendable, Comparable, Codable {
    case warning
    case error

    public static func < (lhs: LintSeverity, rhs: LintSeverity) -> Bool { lhs == .warning && rhs == .error }
}

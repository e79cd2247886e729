/// The fixed vocabulary of validation error codes. The validator, the ingestion endpoint's
/// receipts, the quarantine, the client's counters and the CLI all use these exact strings; they
/// are part of the public API and never change meaning.
public enum ValidationErrorCode: String, Sendable, CaseIterable, Codable, Comparable {
    /// The bytes are not JSON (RFC 8259), including invalid UTF-8 and control characters in strings.
    case malformedJSON = "malformed_json"
    /// The JSON is valid but is not an object.
    case notAnObject = "not_an_object"
    /// A key appears twice in one object.
    case duplicateKey = "duplicate_key"
    /// The event is larger than the catalog's byte limit, or nested beyond the scan depth.
    case tooLarge = "too_large"
    /// `event_name` is not in the catalog (CH33 §8.1, §10 allowlist).
    case unknownEvent = "unknown_event"
    /// `event_name` is a catalogued placeholder that is disabled by default (CH33 §6 Authority).
    case eventDisabled = "event_disabled"
    /// A required global or event property is absent (CH33 §8.1).
    case missingProperty = "missing_property"
    /// A key the catalog does not declare at this place for this event — an unreviewed key may carry PII.
    case unknownProperty = "unknown_property"
    /// The JSON type differs from the catalog's (including `null` for an optional property, CH33 §8.1).
    case typeMismatch = "type_mismatch"
    /// A UUID property is not an RFC 9562 UUID (CH33 §1 Deterministic Identifiers).
    case invalidUUID = "invalid_uuid"
    /// A closed-set string property has a value outside its set.
    case invalidEnum = "invalid_enum"
    /// `event_time_utc` is not an ISO-8601 UTC date-time that exists on the calendar.
    case invalidTimestamp = "invalid_timestamp"
    /// A string does not match its declared format.
    case invalidFormat = "invalid_format"
    /// An integer is outside its catalogued range.
    case outOfRange = "out_of_range"
    /// A key looks like PII (CH33 §8.1 "build-time lint rejects suspicious keys").
    case piiKey = "pii_key"
    /// A string value looks like PII: an email address, phone number, card number or IP address.
    case piiValue = "pii_value"
    /// `analytics_opt_in` is false: such an event must never be sent (CH33 §2.2).
    case optedOut = "opted_out"
    /// The batch names a `catalog_version` the server neither keeps as a release nor can fall
    /// back from (docs/catalog-releases.md); every event of the batch is refused with it.
    case unknownCatalogVersion = "unknown_catalog_version"
    /// The batch names a `catalog_version` the catalog retired (`retired_versions`): that app
    /// build must stop sending (the client config tells it so).
    case catalogVersionRetired = "catalog_version_retired"

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One broken rule: a stable code, where it is (a JSON pointer), and a message that never contains
/// the offending value (it may be PII). Keys that are not plain snake_case identifiers are redacted
/// from the path as `*`.
public struct ValidationIssue: Sendable, Equatable, Hashable, Codable {
    public var code: ValidationErrorCode
    public var path: String
    public var message: String

    public init(code: ValidationErrorCode, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }
}

/// The outcome of validating one event.
public struct Verdict: Sendable, Equatable {
    /// Every rule the event breaks, in the order found (at most the catalog's per-event limit).
    public var issues: [ValidationIssue]
    /// The catalogued event name, when `event_name` named one (safe to log and store).
    public var eventName: String?
    /// True when more issues existed than the per-event limit allowed to list.
    public var isTruncated: Bool

    public init(issues: [ValidationIssue] = [], eventName: String? = nil, isTruncated: Bool = false) {
        self.issues = issues
        self.eventName = eventName
        self.isTruncated = isTruncated
    }

    public var isAccepted: Bool { issues.isEmpty }

    /// The distinct error codes, sorted.
    public var codes: [ValidationErrorCode] { Array(Set(issues.map(\.code))).sorted() }
}

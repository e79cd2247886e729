import HandzAnalyticsCore

/// One way to break an event, covering every validator error code. The corpus labels each line
/// with the mutation applied, so tests and the JSON Schema comparison know what to expect.
public enum CorpusMutation: String, Sendable, CaseIterable {
    case malformedTruncated = "malformed_json:truncated"
    case malformedUTF8 = "malformed_json:invalid_utf8"
    case notAnObject = "not_an_object"
    case duplicateKey = "duplicate_key"
    case tooLarge = "too_large"
    case unknownEvent = "unknown_event"
    case eventDisabled = "event_disabled"
    case missingProperty = "missing_property"
    case unknownProperty = "unknown_property"
    case typeMismatch = "type_mismatch"
    case typeMismatchFractionalInteger = "type_mismatch:fractional_integer"
    case invalidUUID = "invalid_uuid"
    case invalidEnum = "invalid_enum"
    case invalidTimestamp = "invalid_timestamp"
    case invalidFormat = "invalid_format"
    case invalidFormatTrailingNewline = "invalid_format:trailing_newline"
    case outOfRange = "out_of_range"
    case piiKey = "pii_key"
    case piiValue = "pii_value"
    case optedOut = "opted_out"

    /// The error code the validator must report for this mutation.
    public var expectedCode: ValidationErrorCode {
        switch self {
        case .malformedTruncated, .malformedUTF8: .malformedJSON
        case .notAnObject: .notAnObject
        case .duplicateKey: .duplicateKey
        case .tooLarge: .tooLarge
        case .unknownEvent: .unknownEvent
        case .eventDisabled: .eventDisabled
        case .missingProperty: .missingProperty
        case .unknownProperty: .unknownProperty
        case .typeMismatch, .typeMismatchFractionalInteger: .typeMismatch
        case .invalidUUID: .invalidUUID
        case .invalidEnum: .invalidEnum
        case .invalidTimestamp: .invalidTimestamp
        case .invalidFormat, .invalidFormatTrailingNewline: .invalidFormat
        case .outOfRange: .outOfRange
        case .piiKey: .piiKey
        case .piiValue: .piiValue
        case .optedOut: .optedOut
        }
    }

    /// Mutations JSON Schema cannot see, so a standard JSON Schema validator accepts them while
    /// this validator rejects them (HandzCatalog docs, "JSON Schema export and its documented differences"):
    /// duplicate keys (parsers keep the last), PII in an otherwise valid value, an integer
    /// written with a fraction (`3.0` is an integer to JSON Schema).
    public var isInvisibleToJSONSchema: Bool {
        switch self {
        case .duplicateKey, .piiValue, .typeMismatchFractionalInteger: true
        default: false
        }
    }

    /// Mutations that validators built on Python's `re` accept although the exported schema
    /// rejects them under ECMA-262: `$` matching before a final newline.
    public var isInvisibleToPythonRegex: Bool { self == .invalidFormatTrailingNewline }

    /// How often each mutation appears among invalid lines (too_large lines are 33 KB each, so rare).
    var weight: Int { self == .tooLarge ? 1 : 100 }
}

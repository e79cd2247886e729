/// Where one recognised field's value sits in the validated bytes. Spans are stamped with the
/// validator's generation, so a table is reused across events without being cleared.
public struct FieldSpan: Sendable {
    var generation: UInt32 = 0
    /// The value's JSON kind.
    public internal(set) var kind: JSONKind = .null
    /// For strings: whether the content contains escapes (then decode before use).
    public internal(set) var isEscaped: Bool = false
    /// For numbers: written as an integer (no fraction, no exponent).
    public internal(set) var isInteger: Bool = false
    /// For strings: already checked against the property's rule while being read.
    public internal(set) var isVerified: Bool = false
    /// For integers: too large for Int64.
    public internal(set) var isOverflow: Bool = false
    /// Byte offset of the value; for strings, of the content after the opening quote.
    public internal(set) var start: Int32 = 0
    /// Byte length of the value; for strings, of the content between the quotes.
    public internal(set) var length: Int32 = 0
    /// For integer numbers, the value.
    public internal(set) var integerValue: Int64 = 0
}

/// The issues found so far, with the per-event limit.
struct IssueList {
    var issues: [ValidationIssue] = []
    var truncated = false
    let limit: Int

    init(limit: Int) { self.limit = limit }

    mutating func add(_ code: ValidationErrorCode, _ path: String, _ message: String) {
        if issues.count < limit { issues.append(ValidationIssue(code: code, path: path, message: message)) } else { truncated = true }
    }
}

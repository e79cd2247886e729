/// The JSON type of a catalogued property. There are no containers: every property is a scalar,
/// which keeps flow graphs and free-form payloads out by construction (CH33 §2.1).
public enum PropertyType: String, Sendable, CaseIterable {
    case string
    case integer
    case boolean
}

/// One property the pipeline knows, with its type and the constraint that keeps its values
/// reviewed: every string has a closed set of values or a declared format (CH33 §1, §8.1).
public struct PropertyDefinition: Sendable, Equatable {
    public var name: String
    public var type: PropertyType
    /// The closed set of values a string property may take.
    public var allowedValues: [String]?
    /// The declared format a string property must match.
    public var format: StringFormat?
    /// Inclusive bounds for integer properties.
    public var minimum: Int64?
    public var maximum: Int64?
    /// Placeholder properties (CH33 §11 experiments) are catalogued but disabled: rejected until enabled.
    public var isEnabled: Bool
    public var description: String
    /// Where the rule comes from, e.g. "CH33 §3.2".
    public var spec: String?

    public init(
        name: String, type: PropertyType, allowedValues: [String]? = nil, format: StringFormat? = nil,
        minimum: Int64? = nil, maximum: Int64? = nil, isEnabled: Bool = true, description: String = "", spec: String? = nil
    ) {
        self.name = name
        self.type = type
        self.allowedValues = allowedValues
        self.format = format
        self.minimum = minimum
        self.maximum = maximum
        self.isEnabled = isEnabled
        self.description = description
        self.spec = spec
    }

    /// The values a closed-set property may take — `true` and `false` for a boolean, its allowed
    /// values for an enum — or nil for anything else. Only closed sets may be grouped, broken
    /// down or filtered on in analysis, so no free text ever labels a figure (CH33 §1).
    public var closedValues: [String]? {
        type == .boolean ? ["true", "false"] : allowedValues
    }
}

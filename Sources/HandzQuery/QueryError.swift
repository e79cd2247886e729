/// Why a query could not be built. Closed set, one documented case each; `code` is stable and
/// may be matched on by scripts. Messages name catalog identifiers only, never event values.
public enum QueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A string literal holds a control character or NUL (no catalog value does; refusing it
    /// keeps every dialect's quoting rules simple and safe).
    case unsafeLiteral
    /// A property or event name that is not a plain catalog identifier (`[a-z][a-z0-9_]*`).
    case invalidIdentifier(String)
    /// No funnel or KPI with this id in the catalog.
    case unknownDefinition(String)
    /// A breakdown on a property that is not a closed set (enum or boolean), or that the
    /// funnel's first step does not carry.
    case invalidBreakdown(String)
    /// `from` is not before `to`, or a weekly KPI's range holds no whole week.
    case invalidRange(String)
    /// A window that is not positive.
    case invalidWindow
    /// A funnel with fewer than 2 or more than `FunnelDefinition/maxSteps` steps (the chain
    /// walk and the ClickHouse SQL keep an event's steps as bits of a 32-bit mask).
    case invalidFunnel(String)
    /// The lake source with a dialect that cannot read it (``EventSource/lakeDialects``).
    case unsupportedSource(String)

    public var code: String {
        switch self {
        case .unsafeLiteral: "unsafe_literal"
        case .invalidIdentifier: "invalid_identifier"
        case .unknownDefinition: "unknown_definition"
        case .invalidBreakdown: "invalid_breakdown"
        case .invalidRange: "invalid_range"
        case .invalidWindow: "invalid_window"
        case .invalidFunnel: "invalid_funnel"
        case .unsupportedSource: "unsupported_source"
        }
    }

    public var description: String {
        switch self {
        case .unsafeLiteral: "\(code): a value holds a control character"
        case .invalidIdentifier(let name): "\(code): '\(name)' is not a catalog identifier"
        case .unknownDefinition(let id): "\(code): no funnel or KPI named \(id)"
        case .invalidBreakdown(let reason): "\(code): \(reason)"
        case .invalidRange(let reason): "\(code): \(reason)"
        case .invalidWindow: "\(code): the window must be a positive duration"
        case .invalidFunnel(let reason): "\(code): \(reason)"
        case .unsupportedSource(let dialect): "\(code): the lake source is read by spark, clickhouse and duckdb, not \(dialect)"
        }
    }
}

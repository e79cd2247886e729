/// The SQL engines the builders write for. Every builder is pure: definition and parameters in,
/// SQL text out; the dialect decides only spelling (literals, JSON access, integer division,
/// type names), never semantics.
public enum SQLDialect: String, CaseIterable, Sendable {
    case sqlite, postgres, duckdb, clickhouse, spark, bigquery

    /// Whether a backslash starts an escape inside a single-quoted string literal. In these
    /// dialects `''` is not a portable escape (Spark reads `'a''b'` as two adjacent literals), so
    /// quotes and backslashes are escaped with a backslash instead.
    var usesBackslashEscapes: Bool {
        switch self {
        case .clickhouse, .spark, .bigquery: true
        case .sqlite, .postgres, .duckdb: false
        }
    }

    /// A single-quoted string literal holding exactly `value`. Values come from the catalog or
    /// the command line; whatever they hold, they stay one literal. Control characters are
    /// refused rather than escaped (no catalog value has one).
    public func literal(_ value: String) throws(QueryError) -> String {
        var out = "'"
        for scalar in value.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F { throw .unsafeLiteral }
            switch scalar {
            case "'": out += usesBackslashEscapes ? "\\'" : "''"
            case "\\": out += usesBackslashEscapes ? "\\\\" : "\\"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "'"
    }

    /// `(a, b, …)` of literals, for `IN`.
    func literalList(_ values: [String]) throws(QueryError) -> String {
        var parts: [String] = []
        for value in values { parts.append(try literal(value)) }
        return "(" + parts.joined(separator: ", ") + ")"
    }

    /// Integer division of non-negative operands (truncation equals floor there). Each engine
    /// spells it differently; `/` on integers is float division in DuckDB, ClickHouse, Spark
    /// and BigQuery.
    func integerDivision(_ dividend: String, _ divisor: String) -> String {
        switch self {
        case .sqlite, .postgres: "((\(dividend)) / (\(divisor)))"
        case .duckdb: "((\(dividend)) // (\(divisor)))"
        case .clickhouse: "intDiv(\(dividend), \(divisor))"
        case .spark: "((\(dividend)) div (\(divisor)))"
        case .bigquery: "DIV(\(dividend), \(divisor))"
        }
    }

    /// A typed NULL 64-bit integer (UNION ALL branches must agree on types in ClickHouse).
    var nullInteger: String { castInteger("NULL") }

    /// A typed NULL text value.
    var nullText: String {
        switch self {
        case .sqlite: "CAST(NULL AS TEXT)"
        case .postgres: "CAST(NULL AS TEXT)"
        case .duckdb: "CAST(NULL AS VARCHAR)"
        case .clickhouse: "CAST(NULL AS Nullable(String))"
        case .spark, .bigquery: "CAST(NULL AS STRING)"
        }
    }

    /// `expression` (an integer) as text, in decimal.
    func castText(_ expression: String) -> String {
        switch self {
        case .sqlite, .postgres: "CAST(\(expression) AS TEXT)"
        case .duckdb: "CAST(\(expression) AS VARCHAR)"
        case .clickhouse: "CAST(toString(\(expression)) AS Nullable(String))"
        case .spark, .bigquery: "CAST(\(expression) AS STRING)"
        }
    }

    /// `expression` as a nullable 64-bit integer.
    func castInteger(_ expression: String) -> String {
        switch self {
        case .sqlite: "CAST(\(expression) AS INTEGER)"
        case .postgres, .duckdb, .spark: "CAST(\(expression) AS BIGINT)"
        case .clickhouse: "CAST(\(expression) AS Nullable(Int64))"
        case .bigquery: "CAST(\(expression) AS INT64)"
        }
    }

    /// Appended to every query. ClickHouse fills unmatched LEFT JOIN columns with defaults (0,
    /// '') unless told to use NULL as standard SQL does.
    var querySuffix: String {
        self == .clickhouse ? "\nSETTINGS join_use_nulls = 1" : ""
    }
}

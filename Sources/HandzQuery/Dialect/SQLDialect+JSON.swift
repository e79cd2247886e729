import HandzAnalyticsCore

/// Reading one property out of the `properties` JSON object, per engine. Every reader yields
/// NULL when the property is absent, so filters and breakdowns agree everywhere.
extension SQLDialect {
    /// The property as text, the way the catalog writes values: strings as they are, booleans
    /// as `true`/`false`, integers in decimal.
    func propertyText(_ column: String, _ name: String, type: PropertyType) -> String {
        switch (self, type) {
        case (.sqlite, .string): "json_extract(\(column), '$.\(name)')"
        case (.sqlite, .boolean): "(CASE json_extract(\(column), '$.\(name)') WHEN 1 THEN 'true' WHEN 0 THEN 'false' END)"
        case (.sqlite, .integer): "CAST(json_extract(\(column), '$.\(name)') AS TEXT)"
        case (.postgres, _): "(\(column) ->> '\(name)')"
        case (.duckdb, _): "json_extract_string(\(column), '$.\(name)')"
        case (.clickhouse, .string): "JSONExtract(\(column), '\(name)', 'Nullable(String)')"
        case (.clickhouse, _): "if(JSONHas(\(column), '\(name)'), JSONExtractRaw(\(column), '\(name)'), NULL)"
        case (.spark, _): "get_json_object(\(column), '$.\(name)')"
        case (.bigquery, _): "JSON_VALUE(\(column), '$.\(name)')"
        }
    }

    /// An integer property as a 64-bit integer (NULL when absent).
    func propertyInteger(_ column: String, _ name: String) -> String {
        switch self {
        case .sqlite: "json_extract(\(column), '$.\(name)')"
        case .postgres: "CAST(\(column) ->> '\(name)' AS BIGINT)"
        case .duckdb: "CAST(json_extract_string(\(column), '$.\(name)') AS BIGINT)"
        case .clickhouse: "JSONExtract(\(column), '\(name)', 'Nullable(Int64)')"
        case .spark: "CAST(get_json_object(\(column), '$.\(name)') AS BIGINT)"
        case .bigquery: "CAST(JSON_VALUE(\(column), '$.\(name)') AS INT64)"
        }
    }
}

import HandzAnalyticsCore

/// Where a query reads its events from.
///
/// Every builder reads a relation named `events` with the columns of ``EventsTable``. By
/// default that is the engine's `events` table (`handz-analytics sql ddl`). With ``lake(_:)`` the
/// builder first defines `events` as a CTE over the partitioned event lake that
/// `handz-analytics export lake` writes (`dt=YYYY-MM-DD/hour=HH/part-00000.ndjson.gz`, one JSON
/// object per stored event, `properties` as a JSON string), so the same funnel and KPI
/// definitions run over the exported files unchanged (issue 8: "Past one machine").
///
/// The lake is read by Spark SQL (`json.` path), ClickHouse (`file()`, or `s3()` for an
/// `http(s)://` location) and DuckDB (`read_ndjson`). Every column has the type the
/// `events` table has, so the SQL after the CTE is identical for both sources — but for the
/// cohort KPIs' install time, which reads ``InstallFirstSeenTable`` beside the table and, the lake
/// holding events only, the first `app_open` in the lake (HandzQuery docs, "KPI definitions").
public enum EventSource: Sendable, Equatable {
    /// The engine's `events` table.
    case table
    /// The lake rooted at this location: a local directory (absolute path recommended), or
    /// for ClickHouse an `http(s)://` object-store prefix, for Spark any Hadoop path
    /// (`s3a://…`, `hdfs://…`).
    case lake(String)

    /// The dialects that can read the lake directly.
    public static let lakeDialects: [SQLDialect] = [.spark, .clickhouse, .duckdb]

    /// The glob below the lake root that matches every partition's data files (and never the
    /// `_manifest.json` files next to them).
    public static let partitionGlob = "dt=*/hour=*/*.ndjson.gz"

    /// The CTEs to put first in the query's `WITH` list: none for the table, `events AS (…)`
    /// for the lake.
    func leadingCTEs(_ dialect: SQLDialect) throws(QueryError) -> [String] {
        guard case .lake(let root) = self else { return [] }
        guard Self.lakeDialects.contains(dialect) else { throw .unsupportedSource(dialect.rawValue) }
        let trimmed = root.hasSuffix("/") ? String(root.dropLast()) : root
        let files = trimmed + "/" + Self.partitionGlob
        let reader: String
        switch dialect {
        case .spark:
            // A path in backticks is an identifier, not a literal: refuse what would end it.
            guard !files.contains("`"), !files.unicodeScalars.contains(where: { $0.value < 0x20 }) else { throw .unsafeLiteral }
            reader = "json.`\(files)`"
        case .clickhouse:
            let structure = EventsTable.columns
                .map { "\($0.name) \(EventsDDL.type($0.kind == .eventID || $0.kind == .json ? .text : $0.kind, .clickhouse, nullable: $0.isNullable))" }
                .joined(separator: ", ")
            let function = root.hasPrefix("http://") || root.hasPrefix("https://") ? "s3" : "file"
            reader = "\(function)(\(try dialect.literal(files)), 'JSONEachRow', \(try dialect.literal(structure)))"
        case .duckdb:
            let columns = EventsTable.columns
                .map { "'\($0.name)': '\($0.kind == .integer ? "BIGINT" : "VARCHAR")'" }
                .joined(separator: ", ")
            reader = "read_ndjson(\(try dialect.literal(files)), columns = {\(columns)})"
        case .sqlite, .postgres, .bigquery:
            throw .unsupportedSource(dialect.rawValue)
        }
        // ClickHouse and DuckDB are given the column types with the reader; Spark infers them
        // from the JSON, so its columns are cast to the table's types here.
        let projection = EventsTable.columns.map { column -> String in
            guard dialect == .spark else { return column.name }
            return "CAST(\(column.name) AS \(column.kind == .integer ? "BIGINT" : "STRING")) AS \(column.name)"
        }
        return ["\(EventsTable.name) AS (\n  SELECT \(projection.joined(separator: ",\n         "))\n  FROM \(reader)\n)"]
    }
}

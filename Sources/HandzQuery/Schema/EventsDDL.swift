import HandzAnalyticsCore

/// `CREATE TABLE events` for the engines an analyst moves to (`handz-analytics sql ddl`), followed
/// by the `install_first_seen` table the cohort KPIs read beside it (``InstallFirstSeenTable``). The
/// embedded SQLite store's own DDL is `HandzStore.StoreSchema`; a test keeps the two in step.
public enum EventsDDL {
    public static func createTable(_ dialect: SQLDialect) -> String {
        let lines = EventsTable.columns.map { column in
            "    \(column.name) \(columnType(column, dialect))"
        }
        var sql = "CREATE TABLE \(EventsTable.name) (\n" + lines.joined(separator: ",\n") + "\n)"
        switch dialect {
        case .clickhouse: sql += "\nENGINE = MergeTree\nORDER BY (install_id, event_time_ms, event_id)"
        case .spark: sql += "\nUSING parquet"
        case .bigquery: sql += "\nCLUSTER BY install_id, event_name"
        case .sqlite, .postgres, .duckdb: break
        }
        sql += ";\n"
        switch dialect {
        case .postgres, .duckdb, .sqlite:
            sql += "CREATE UNIQUE INDEX events_by_event_id ON events(event_id);\n"
            sql += "CREATE INDEX events_by_install_time ON events(install_id, event_time_ms);\n"
            sql += "CREATE INDEX events_by_name_time ON events(event_name, event_time_ms);\n"
        case .clickhouse, .spark, .bigquery: break
        }
        return sql + InstallFirstSeenTable.createTable(dialect)
    }

    /// `column`'s type in `dialect`'s DDL, with its nullability (what each store's table must have).
    public static func columnType(_ column: EventColumn, _ dialect: SQLDialect) -> String {
        type(column.kind, dialect, nullable: column.isNullable)
    }

    static func type(_ type: EventColumn.Kind, _ dialect: SQLDialect, nullable: Bool) -> String {
        let base: String
        switch (type, dialect) {
        case (.eventID, .sqlite): base = "BLOB"
        case (.eventID, .postgres), (.text, .postgres): base = "TEXT COLLATE \"C\""
        case (.text, .sqlite), (.json, .sqlite): base = "TEXT"
        case (.eventID, .duckdb), (.text, .duckdb), (.json, .duckdb): base = "VARCHAR"
        case (.eventID, .clickhouse), (.text, .clickhouse), (.json, .clickhouse): base = "String"
        case (.eventID, .spark), (.text, .spark), (.json, .spark): base = "STRING"
        case (.eventID, .bigquery), (.text, .bigquery), (.json, .bigquery): base = "STRING"
        case (.json, .postgres): base = "JSONB"
        case (.integer, .sqlite): base = "INTEGER"
        case (.integer, .postgres), (.integer, .duckdb), (.integer, .spark): base = "BIGINT"
        case (.integer, .clickhouse): base = "Int64"
        case (.integer, .bigquery): base = "INT64"
        }
        switch dialect {
        case .clickhouse: return nullable ? "Nullable(\(base))" : base
        case .spark, .bigquery: return nullable ? base : base + " NOT NULL"
        default: return nullable ? base : base + " NOT NULL"
        }
    }
}

import HandzAnalyticsCore

/// `install_first_seen`: each install's first-seen time, which the cohort KPIs read beside
/// `events` (issue 32 §6). The stores keep it (`HandzStore.InstallFirstSeen`, the PostgreSQL
/// store's migration 4): one row per install that sent an `app_open`, holding the earliest
/// `event_time_ms` of its `app_open`s ever stored, which neither retention nor a deletion's
/// de-identification moves (0: first seen before any of its stored events).
///
/// An engine loaded from the store gets it with `events` (`handz-analytics sql ddl` creates both);
/// left empty, the cohort KPIs fall back to the first stored `app_open`, the definition before
/// issue 32 — also what they use over the lake, which holds events only (``EventSource/lake(_:)``).
public enum InstallFirstSeenTable {
    public static let name = "install_first_seen"

    /// Its columns, in the store's order: the id and two epoch-ms times, none nullable.
    public static let columns: [(name: String, kind: EventColumn.Kind)] = [
        (EventColumn.installID.name, .text),
        ("first_app_open_ms", .integer),
        ("last_received_ms", .integer),
    ]

    /// `CREATE TABLE install_first_seen` for the engine, keyed by `install_id` where the engine has keys.
    public static func createTable(_ dialect: SQLDialect) -> String {
        let lines = columns.map { column in
            "    \(column.name) \(EventsDDL.type(column.kind, dialect, nullable: false))"
                + (column.name == EventColumn.installID.name && [.sqlite, .postgres, .duckdb].contains(dialect) ? " PRIMARY KEY" : "")
        }
        var sql = "CREATE TABLE \(name) (\n" + lines.joined(separator: ",\n") + "\n)"
        switch dialect {
        case .clickhouse: sql += "\nENGINE = MergeTree\nORDER BY install_id"
        case .spark: sql += "\nUSING parquet"
        case .bigquery: sql += "\nCLUSTER BY install_id"
        case .sqlite, .postgres, .duckdb: break
        }
        return sql + ";\n"
    }
}

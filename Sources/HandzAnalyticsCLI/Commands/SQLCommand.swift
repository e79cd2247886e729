import ArgumentParser
import HandzQuery

/// `handz-analytics sql funnel|kpi|ddl --dialect D`: the SQL an analyst runs on another engine.
struct SQLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Print the SQL of a funnel or KPI, or the events table, for sqlite, postgres, duckdb, clickhouse, spark or bigquery.",
        subcommands: [FunnelSQL.self, KPISQL.self, TrendSQL.self, RetentionSQL.self, PathSQL.self, DDLSQL.self, PanelSQL.self, BatchSQL.self]
    )

    struct FunnelSQL: SQLTextCommand {
        static let configuration = CommandConfiguration(
            commandName: "funnel",
            abstract: "One funnel run as SQL: rows (breakdown, step, actors, median_ms); conversions are ratios of actors."
        )

        @OptionGroup var catalogOptions: CatalogOptions
        @OptionGroup var funnel: FunnelOptions
        @OptionGroup var target: SQLTargetOptions

        func sqlText() throws -> String {
            let catalog = try catalogOptions.load()
            var query = try funnel.query(catalog)
            query.source = target.source
            return try usage { try FunnelSQLBuilder(catalog: catalog, dialect: target.dialect).sql(query) } + "\n"
        }
    }

    struct DDLSQL: SQLTextCommand {
        static let configuration = CommandConfiguration(commandName: "ddl", abstract: "CREATE TABLE events for the engine.")

        @Option(help: "sqlite, postgres, duckdb, clickhouse, spark or bigquery.")
        var dialect: SQLDialect

        func sqlText() -> String {
            EventsDDL.createTable(dialect)
        }
    }
}

/// `--dialect D [--lake DIR]`: which engine the SQL is for, and whether it reads the `events`
/// table or the exported lake (`export lake`).
struct SQLTargetOptions: ParsableArguments {
    @Option(help: "sqlite, postgres, duckdb, clickhouse, spark or bigquery.")
    var dialect: SQLDialect

    @Option(help: "Read the event lake written by `export lake` at this root instead of the events table (spark, clickhouse, duckdb).")
    var lake: String?

    var source: EventSource { lake.map(EventSource.lake) ?? .table }

    func validate() throws {
        if lake != nil, !EventSource.lakeDialects.contains(dialect) {
            throw ValidationError("--lake works with \(EventSource.lakeDialects.map(\.rawValue).joined(separator: ", "))")
        }
    }
}

import ArgumentParser
import HandzQuery

/// `handz-analytics sql funnel|kpi|ddl --dialect D`: the SQL an analyst runs on another engine.
struct SQLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Print the SQL of a funnel or KPI, or the events table, for sqlite, postgres, duckdb, clickhouse, spark or bigquery.",
        subcommands: [FunnelSQL.self, KPISQL.self, DDLSQL.self, PanelSQL.self]
    )

    struct FunnelSQL: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "funnel",
            abstract: "One funnel run as SQL: rows (breakdown, step, actors, median_ms); conversions are ratios of actors."
        )

        @OptionGroup var catalogOptions: CatalogOptions
        @OptionGroup var funnel: FunnelOptions

        @Option(help: "sqlite, postgres, duckdb, clickhouse, spark or bigquery.")
        var dialect: SQLDialect

        func run() throws {
            let catalog = try catalogOptions.load()
            let query = try funnel.query(catalog)
            print(try usage { try FunnelSQLBuilder(catalog: catalog, dialect: dialect).sql(query) })
        }
    }

    struct DDLSQL: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ddl", abstract: "CREATE TABLE events for the engine.")

        @Option(help: "sqlite, postgres, duckdb, clickhouse, spark or bigquery.")
        var dialect: SQLDialect

        func run() {
            print(EventsDDL.createTable(dialect), terminator: "")
        }
    }
}

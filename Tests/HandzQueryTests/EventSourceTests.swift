import HandzAnalyticsCore
import HandzQuery
import HandzTestSupport
import Testing

/// The lake source: the same funnel and KPI SQL, with `events` defined over the lake's files.
/// That the numbers agree with SQLite on Spark, ClickHouse and DuckDB is proven by
/// scripts/check-cluster.sh on real engines; these tests pin the SQL's shape and its safety.
@Suite struct EventSourceTests {
    let catalog = RepositoryCatalog.catalog
    var funnel: FunnelDefinition { catalog.funnels[0] }

    func funnelSQL(_ dialect: SQLDialect, _ source: EventSource) throws -> String {
        try FunnelSQLBuilder(catalog: catalog, dialect: dialect).sql(FunnelQuery(funnel: funnel, fromMs: 0, toMs: 86_400_000, source: source))
    }

    @Test("each lake dialect reads the partition files with its own reader, the rest of the SQL unchanged", arguments: EventSource.lakeDialects)
    func reader(dialect: SQLDialect) throws {
        let table = try funnelSQL(dialect, .table)
        let lake = try funnelSQL(dialect, .lake("/data/handz-lake/"))
        let expectedReader = switch dialect {
        case .spark: "FROM json.`/data/handz-lake/dt=*/hour=*/*.ndjson.gz`"
        case .clickhouse: "FROM file('/data/handz-lake/dt=*/hour=*/*.ndjson.gz', 'JSONEachRow', 'event_id String, "
        default: "FROM read_ndjson('/data/handz-lake/dt=*/hour=*/*.ndjson.gz', columns = {'event_id': 'VARCHAR'"
        }
        #expect(lake.contains(expectedReader))
        #expect(lake.hasPrefix("WITH\nevents AS (\n"))
        // Everything after the source CTE is the table query's own text.
        #expect(lake.hasSuffix(String(table.dropFirst("WITH\n".count))))
    }

    @Test("ClickHouse reads an http(s) lake with s3()")
    func objectStore() throws {
        #expect(try funnelSQL(.clickhouse, .lake("https://bucket.example/lake")).contains("FROM s3('https://bucket.example/lake/dt=*/hour=*/*.ndjson.gz'"))
    }

    @Test("the lake is refused for dialects without a file reader, and hostile paths stay literals")
    func refusals() throws {
        for dialect in [SQLDialect.sqlite, .postgres, .bigquery] {
            #expect(throws: QueryError.unsupportedSource(dialect.rawValue)) { try funnelSQL(dialect, .lake("/lake")) }
        }
        #expect(throws: QueryError.unsafeLiteral) { try funnelSQL(.spark, .lake("/lake`; DROP TABLE x; --")) }
        let quoted = try funnelSQL(.clickhouse, .lake("/lake'); DROP TABLE events; --"))
        #expect(quoted.contains("file('/lake\\'); DROP TABLE events; --/dt=*/hour=*/*.ndjson.gz'"))
        let kpi = try #require(catalog.kpis.first)
        let sql = try KPISQLBuilder(catalog: catalog, dialect: .duckdb).sql(KPIQuery(kpi: kpi, fromMs: 0, toMs: 30 * 86_400_000, source: .lake("/lake")))
        #expect(sql.contains("read_ndjson('/lake/dt=*/hour=*/*.ndjson.gz'"))
    }
}

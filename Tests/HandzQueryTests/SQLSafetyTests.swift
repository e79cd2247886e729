import Foundation
import HandzAnalyticsCore
import HandzQuery
import HandzSQLite
import HandzTestSupport
import Testing

/// Values reach SQL only as safely quoted literals; identifiers only from the catalog.
@Suite struct SQLSafetyTests {
    static let hostile = [
        "x' OR '1'='1", "'; DROP TABLE events; --", "a\\'b", "\\", "it''s", "\"quoted\"", "ünïcödé ✓", "$$; SELECT 1; $$", "a\\\\' OR 1=1 --",
    ]

    @Test("hostile filter values match exactly the events that carry them, and the table survives", arguments: hostile)
    func hostileFilterValue(value: String) throws {
        let t = FunnelFixtureTests.base + 3_600_000
        let json = String(decoding: try JSONSerialization.data(withJSONObject: [value], options: []), as: UTF8.self).dropFirst().dropLast()
        let events = [
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a"),
            FixtureEvent(id: 2, name: "gate_result", timeMs: t + 1_000, install: "a", properties: ["result": String(json)]),
            FixtureEvent(id: 3, name: "app_open", timeMs: t, install: "b"),
            FixtureEvent(id: 4, name: "gate_result", timeMs: t + 1_000, install: "b", properties: ["result": "\"blocked\""]),
        ]
        let funnel = fixtureFunnel([["app_open"], ["gate_result"]], filters: [2: [PropertyFilter(property: "result", values: [value])]])
        let store = try FixtureStore(events)
        defer { store.remove() }
        let query = FunnelQuery(funnel: funnel, fromMs: FunnelFixtureTests.base, toMs: t + 86_400_000)
        #expect(try store.funnel(query) == [FunnelKey(bucket: nil, step: 1): FunnelValue(actors: 2, medianMs: nil),
                                            FunnelKey(bucket: nil, step: 2): FunnelValue(actors: 1, medianMs: 1_000)])
        let database = try SQLiteDatabase(path: store.path, readOnly: true)
        #expect(try database.scalar("SELECT COUNT(*) FROM events") == 4)
    }

    @Test("every dialect quotes a literal so that it stays one literal")
    func literalQuoting() throws {
        #expect(try SQLDialect.sqlite.literal("it's") == "'it''s'")
        #expect(try SQLDialect.postgres.literal("a\\b") == "'a\\b'")
        #expect(try SQLDialect.duckdb.literal("it's") == "'it''s'")
        for dialect in [SQLDialect.clickhouse, .spark, .bigquery] {
            #expect(try dialect.literal("it's") == "'it\\'s'")
            #expect(try dialect.literal("a\\'") == "'a\\\\\\''")
        }
    }

    @Test("control characters are refused in every dialect with a stable code")
    func controlCharacters() {
        for dialect in SQLDialect.allCases {
            for value in ["a\nb", "a\u{0}b", "\u{1B}[0m", "tab\there"] {
                #expect(throws: QueryError.unsafeLiteral) { try dialect.literal(value) }
            }
        }
        #expect(QueryError.unsafeLiteral.code == "unsafe_literal")
    }

    @Test("a property name that is not a catalog identifier never reaches SQL")
    func identifiers() {
        let funnel = fixtureFunnel([["app_open"], ["gate_result"]], filters: [2: [PropertyFilter(property: "result') OR 1=1 --", values: ["blocked"])]])
        let query = FunnelQuery(funnel: funnel, fromMs: 0, toMs: 1)
        for dialect in SQLDialect.allCases {
            #expect(throws: QueryError.invalidIdentifier("result') OR 1=1 --")) {
                try FunnelSQLBuilder(catalog: RepositoryCatalog.catalog, dialect: dialect).sql(query)
            }
        }
    }

    @Test("breakdowns are limited to closed sets the entry event carries")
    func breakdownRestrictions() throws {
        let catalog = RepositoryCatalog.catalog
        let f0 = catalog.funnels.first { $0.id == "F0" }!
        let builder = FunnelSQLBuilder(catalog: catalog, dialect: .postgres)
        for property in ["install_id", "flow_id", "duration_ms"] {
            #expect(throws: QueryError.self) { try builder.sql(FunnelQuery(funnel: f0, fromMs: 0, toMs: 1, breakdown: property)) }
        }
        #expect(throws: QueryError.invalidBreakdown("no step-1 event of F0 carries paywall_id")) {
            try builder.sql(FunnelQuery(funnel: f0, fromMs: 0, toMs: 1, breakdown: "paywall_id"))
        }
        _ = try builder.sql(FunnelQuery(funnel: f0, fromMs: 0, toMs: 1, breakdown: "start_type"))
        _ = try builder.sql(FunnelQuery(funnel: f0, fromMs: 0, toMs: 1, breakdown: "user_state"))
    }

    @Test("an empty range and a non-positive window are refused")
    func ranges() {
        let f0 = RepositoryCatalog.catalog.funnels[0]
        let builder = FunnelSQLBuilder(catalog: RepositoryCatalog.catalog, dialect: .sqlite)
        #expect(throws: QueryError.invalidRange("from must be before to")) { try builder.sql(FunnelQuery(funnel: f0, fromMs: 5, toMs: 5)) }
        #expect(throws: QueryError.invalidWindow) { try builder.sql(FunnelQuery(funnel: f0, fromMs: 0, toMs: 5, windowMs: 0)) }
    }

    @Test("a funnel needs 2 to 31 steps (the 32-bit mask holds the success too), in every dialect and in the events read for the chain walk")
    func stepLimit() throws {
        let catalog = RepositoryCatalog.catalog
        let tooLong = fixtureFunnel(Array(repeating: ["app_open"], count: FunnelDefinition.maxSteps + 1))
        let longest = fixtureFunnel(Array(repeating: ["app_open"], count: FunnelDefinition.maxSteps))
        for dialect in SQLDialect.allCases {
            let builder = FunnelSQLBuilder(catalog: catalog, dialect: dialect)
            #expect(throws: QueryError.self) { try builder.sql(FunnelQuery(funnel: tooLong, fromMs: 0, toMs: 5)) }
            #expect(throws: QueryError.self) { try builder.sql(FunnelQuery(funnel: fixtureFunnel([["app_open"]]), fromMs: 0, toMs: 5)) }
            #expect(try builder.sql(FunnelQuery(funnel: longest, fromMs: 0, toMs: 5)).contains("s31"))
        }
        #expect(throws: QueryError.self) { try FunnelSQLBuilder(catalog: catalog, dialect: .sqlite).eventsSQL(FunnelQuery(funnel: tooLong, fromMs: 0, toMs: 5)) }
    }
}

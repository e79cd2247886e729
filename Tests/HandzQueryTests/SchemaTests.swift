import HandzQuery
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// The events table other engines get is the store's table.
@Suite struct SchemaTests {
    @Test("the engines' events table has exactly the store's columns, in order, with the store's nullability")
    func columnsMatchTheStore() throws {
        let store = try FixtureStore([])
        defer { store.remove() }
        let database = try SQLiteDatabase(path: store.path, readOnly: true)
        let stored = try database.prepare("SELECT name, \"notnull\" FROM pragma_table_info('events') ORDER BY cid").query { ($0.text(0)!, $0.int64(1) == 0) }
        #expect(stored.map(\.0) == EventsTable.columns.map(\.name))
        #expect(stored.map(\.1) == EventsTable.columns.map(\.isNullable))
    }

    @Test("every dialect's DDL names every column once")
    func ddlNamesEveryColumn() {
        for dialect in SQLDialect.allCases {
            let ddl = EventsDDL.createTable(dialect)
            for column in EventsTable.columns {
                #expect(ddl.contains("    \(column.name) "), "\(dialect) \(column.name)")
            }
        }
        #expect(EventsDDL.createTable(.postgres).contains("event_id TEXT COLLATE \"C\" NOT NULL"))
        #expect(EventsDDL.createTable(.clickhouse).contains("user_id Nullable(String)"))
    }
}

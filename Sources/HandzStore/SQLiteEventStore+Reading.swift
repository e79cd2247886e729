import HandzSQLite

/// Why the embedded store cannot be read for analysis as it is. Analysis opens the file read-only
/// and never changes it (issue 32 §9), so a file it cannot read as it is stays as it is, and the
/// error names what would upgrade it. Messages name no event value and no path.
public enum StoreReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's schema is older than this release's: a store last written by an older release.
    /// A reader does not migrate it; any command that writes the store does (`handz-analytics
    /// layer --db FILE`, `serve`, `import`), in place (issue 15 §4).
    case olderSchema(found: Int, current: Int)
    /// The file holds no store schema (not written by handz-analytics, or empty).
    case notAStore
    /// The store's events are in the segment engine's segments and column chunks (issue 34), and
    /// its SQLite log, which this reads, is empty: an answer from it would count nothing.
    case eventsInSegments

    /// A stable code for scripts and tests.
    public var code: String {
        switch self {
        case .olderSchema: "store_schema_older"
        case .notAStore: "not_a_store"
        case .eventsInSegments: "events_in_segments"
        }
    }

    public var description: String {
        switch self {
        case .olderSchema(let found, let current):
            "the store's schema is version \(found), older than this release's \(current); analysis opens the store read-only and does not upgrade it: "
                + "`handz-analytics layer --db FILE` upgrades it in place (so does any command that writes it, `serve` or `import`)"
        case .notAStore:
            "the file holds no handz-analytics store (no schema_migrations table)"
        case .eventsInSegments:
            "the store's events are in its segment log and column store, not in the SQLite log this reads: the column engine answers "
                + "(`--via auto`), or `handz-analytics export sqlite --db FILE --out EVENTS.sqlite` writes them as an events table"
        }
    }
}

extension SQLiteEventStore {
    /// A connection for analysis that cannot write: SQLite's `SQLITE_OPEN_READONLY` (a missing file
    /// is an error, never created), the analysis settings, and a schema check. Nothing is migrated
    /// and nothing is sealed: a file of an older schema is refused with
    /// ``StoreReadError/olderSchema(found:current:)``; one of a newer schema is read (migrations
    /// only add, so the tables read here are as this release knows them).
    ///
    /// The database file and its write-ahead log are never written. Reading a WAL database needs
    /// the `-shm` index that every reader and writer of the file shares (SQLite records its read
    /// marks there): when the file was closed cleanly, SQLite creates an empty `-wal` and the
    /// `-shm` beside it, as for any reader, and leaves them.
    public static func openForReading(path: String) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path, readOnly: true)
        // The settings first: changing `temp_store` drops every temporary object.
        try database.execute(analysisSettings)
        let found = try schemaVersion(database)
        guard let found else { throw StoreReadError.notAStore }
        guard found >= StoreSchema.currentVersion else { throw StoreReadError.olderSchema(found: Int(found), current: StoreSchema.currentVersion) }
        return database
    }

    /// The settings of a connection that analyses (it sorts millions of rows): temporary b-trees
    /// in memory, a 256 MiB page cache, the file mapped. Set before any temporary object is made,
    /// since changing `temp_store` deletes them all.
    public static let analysisSettings = "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -262144; PRAGMA mmap_size = 1073741824"

    /// The applied schema version of an open store, nil when the file has no `schema_migrations`
    /// (one statement: preparing it fails when the table is missing).
    public static func schemaVersion(_ database: SQLiteDatabase) throws -> Int64? {
        let statement: SQLiteStatement
        do {
            statement = try database.prepare("SELECT COALESCE(MAX(version), 0) FROM main.schema_migrations")
        } catch let error as SQLiteError where error.code & 0xFF == 1 {  // SQLITE_ERROR: no such table
            return nil
        }
        return try statement.query { $0.int64(0) }.first
    }
}

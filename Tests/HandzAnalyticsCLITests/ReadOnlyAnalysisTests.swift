import Foundation
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Issue 32 §9: `funnel`, `kpi` and `dashboard render` open the store read-only and never write
/// it — not on a sealed store, not on one whose column store is behind the log (they read the log and
/// say so, with the same numbers), not on one of an older schema (refused, naming the command
/// that upgrades it).
@Suite(.serialized) struct ReadOnlyAnalysisTests {
    /// The database file's bytes and its write-ahead log's (nil when absent).
    struct FileState: Equatable {
        var database: Data
        var wal: Data?

        init(_ path: String) throws {
            database = try Data(contentsOf: URL(fileURLWithPath: path))
            wal = FileManager.default.contents(atPath: path + "-wal")
        }

        /// The same database bytes, and a log with no frames written: the one it had, or none (a
        /// reader of a WAL file may leave SQLite's empty `-wal` beside it).
        func unchanged(by after: FileState) -> Bool {
            database == after.database && (after.wal == wal || (wal == nil && after.wal?.isEmpty == true))
        }
    }

    static let range = ["--from", "2026-03-01", "--to", "2026-03-15"]

    /// `funnel F0`, `kpi --all` (JSON) and `dashboard render` on `db`; their results in order.
    func analyse(_ db: String, out: URL) throws -> [CommandRunner.Result] {
        [try CommandRunner.run(["funnel", "F0", "--db", db, "--format", "json"] + Self.range),
         try CommandRunner.run(["kpi", "--all", "--db", db, "--format", "json"] + Self.range),
         try CommandRunner.run(["dashboard", "render", "--db", db, "--out", out.path], timeout: 300)]
    }

    @Test("funnel, kpi and dashboard render leave a sealed store, a store whose column copy is behind and one of an older schema byte for byte as they were")
    func analysisNeverWrites() throws {
        let files = try SimulatedFiles("handz-read-only")
        defer { files.remove() }
        let imported = try CommandRunner.run(["import", "--db", files.db, "--engine", "sqlite", files.events])
        #expect(imported.status == 0, "\(imported.stderr)")
        // As a stopped server leaves it: the write-ahead log checkpointed into the file (copied below).
        do { try SQLiteDatabase(path: files.db).execute("PRAGMA wal_checkpoint(TRUNCATE)") }

        // Sealed (import seals what it stored): the numbers every other store must give.
        let caughtUp = try FileState(files.db)
        let reference = try analyse(files.db, out: files.directory.appendingPathComponent("report-caught-up"))
        for result in reference { #expect(result.status == 0, "\(result.stderr)") }
        #expect(reference.allSatisfy { !$0.stderr.contains("this answer reads the log") })
        #expect(caughtUp.unchanged(by: try FileState(files.db)))

        // The column copy behind the log: its last 50 events stored again after the seal (the
        // same events under new rowids), as a running server leaves it between seals.
        let lagging = files.directory.appendingPathComponent("lagging.sqlite").path
        try FileManager.default.copyItem(atPath: files.db, toPath: lagging)
        try FileManager.default.copyItem(atPath: files.db + ".columns", toPath: lagging + ".columns")
        do {
            let database = try SQLiteDatabase(path: lagging)
            try database.execute("""
                CREATE TEMP TABLE tail AS SELECT * FROM main.events ORDER BY rowid DESC LIMIT 50;
                DELETE FROM main.events WHERE rowid IN (SELECT rowid FROM main.events ORDER BY rowid DESC LIMIT 50);
                INSERT INTO main.events SELECT * FROM tail;
                """)
        }
        let laggingBefore = try FileState(lagging)
        let fromLagging = try analyse(lagging, out: files.directory.appendingPathComponent("report-lagging"))
        for result in fromLagging {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("has events its column store does not hold yet; this answer reads the log"), "\(result.stderr)")
        }
        #expect(fromLagging[0].stdout == reference[0].stdout, "the funnel counts every stored event")
        #expect(fromLagging[1].stdout == reference[1].stdout, "the KPIs count every stored event")
        #expect(laggingBefore.unchanged(by: try FileState(lagging)), "nothing sealed")

        // An older schema: a file as version 3 of the store wrote it, holding
        // the same events. Refused, unchanged, and the refusal names the command that upgrades it.
        let older = files.directory.appendingPathComponent("older.sqlite").path
        do {
            let database = try SQLiteDatabase(path: older)
            try database.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_time_ms INTEGER NOT NULL, description TEXT NOT NULL)")
            for migration in StoreSchema.migrations where migration.version <= 3 {
                try database.execute(migration.sql)
                try database.prepare("INSERT INTO schema_migrations VALUES (?1, 0, ?2)").run([.integer(Int64(migration.version)), .text(migration.description)])
            }
            try database.execute("ATTACH DATABASE '\(files.db)' AS source; INSERT INTO events SELECT * FROM source.events; DETACH DATABASE source")
        }
        let olderBefore = try FileState(older)
        for result in try analyse(older, out: files.directory.appendingPathComponent("report-older")) {
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("older than this release's") && result.stderr.contains("`handz-analytics layer --db FILE` upgrades it"), "\(result.stderr)")
        }
        #expect(olderBefore.unchanged(by: try FileState(older)), "nothing migrated")
        let upgraded = try CommandRunner.run(["layer", "--db", older])
        #expect(upgraded.status == 0, "\(upgraded.stderr)")
        #expect(try CommandRunner.run(["funnel", "F0", "--db", older, "--format", "json"] + Self.range).stdout == reference[0].stdout)
    }
}

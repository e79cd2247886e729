import Foundation
import HandzSQLite
import HandzTestSupport
import Testing

/// `handz-analytics layer` (issue 33): brings the store's column store up to date with its log —
/// nothing to do after `import`, everything again with `--rebuild`, and from nothing after an
/// edit of the log outside its deletion journal. Its crash safety is `SealCrashTests`'.
@Suite struct LayerCommandTests {
    func layer(_ arguments: [String]) throws -> [String: Any] {
        let run = try CommandRunner.run(["layer"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test("layer after import seals nothing; --rebuild seals every event again; an edit of the log by hand makes it start over")
    func sealsWhatTheLogHolds() throws {
        let files = try SimulatedFiles("handz-layer-cli")
        defer { files.remove() }
        let imported = try CommandRunner.run(["import", "--db", files.db, "--engine", "sqlite", files.events])
        #expect(imported.status == 0, "\(imported.stderr)")
        let database = try SQLiteDatabase(path: files.db)
        let stored = Int(try #require(try database.scalar("SELECT COUNT(*) FROM events")))

        let current = try layer(["--db", files.db])
        #expect(current["sealed_rows"] as? Int == 0 && current["started_over"] as? Bool == false && current["rewritten_chunks"] as? Int == 0)
        let rebuilt = try layer(["--db", files.db, "--rebuild"])
        #expect(rebuilt["sealed_rows"] as? Int == stored)

        try database.execute("DELETE FROM events WHERE rowid IN (SELECT rowid FROM events ORDER BY rowid LIMIT 10)")
        let resealed = try layer(["--db", files.db])
        #expect(resealed["started_over"] as? Bool == true)
        #expect(resealed["sealed_rows"] as? Int == stored - 10)
        // Every analysis command reads the column store again.
        let kpi = try CommandRunner.run(["kpi", "crash_free_sessions", "--db", files.db, "--via", "columns", "--from", "2026-03-01", "--to", "2026-04-01"])
        #expect(kpi.status == 0, "\(kpi.stderr)")
    }
}

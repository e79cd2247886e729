import Foundation
import HandzSQLite
import HandzTestSupport
import Testing

/// `handz-analytics layer` and the analytical layer's crash safety (issue 15): a catch-up killed
/// with SIGKILL inside a batch's transaction loses nothing and duplicates nothing.
@Suite struct LayerCommandTests {
    @Test("kill -9 during catch-up: the committed batches stay, the killed one is rolled back, the next catch-up folds the rest once")
    func killDuringCatchUp() throws {
        let files = try SimulatedFiles("handz-layer-cli")
        defer { files.remove() }
        let imported = try CommandRunner.run(["import", "--db", files.db, files.events])
        #expect(imported.status == 0, "\(imported.stderr)")
        let killed = try CommandRunner.run(["layer", "--db", files.db, "--rebuild", "--batch-rows", "500", "--fault-kill-in-batch", "3"])
        #expect(killed.status == SIGKILL, "the process was to die inside batch 3")
        let database = try SQLiteDatabase(path: files.db, readOnly: true)
        let stored = try #require(try database.scalar("SELECT COUNT(*) FROM events"))
        #expect(stored > 1_500)
        // Batches 1 and 2 committed; batch 3's rows and watermark rolled back together.
        #expect(try database.scalar("SELECT COUNT(*) FROM analytic_events") == 1_000)
        #expect(try database.scalar("SELECT value FROM analytic_state WHERE key = 'folded_through_rowid'") == 1_000)

        let resumed = try CommandRunner.run(["layer", "--db", files.db, "--batch-rows", "500"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("\"folded\":\(stored - 1_000),\"lag_rows\":0"), "\(resumed.stdout)")
        #expect(try database.scalar("SELECT COUNT(*) FROM analytic_events") == stored)
        #expect(try database.scalar("SELECT COUNT(*) FROM analytic_events a JOIN events e ON e.event_id = a.event_id") == stored)
    }
}

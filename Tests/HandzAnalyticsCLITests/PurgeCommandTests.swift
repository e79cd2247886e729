import Foundation
import HandzSQLite
import HandzTestSupport
import Testing

/// `purge --older-than` (CH33-P3, the retention period by hand) on a real store: it deletes by
/// the time the events were received, counts what it deleted, leaves the column store in step
/// with the log, and refuses a period that is not one.
@Suite(.serialized) struct PurgeCommandTests {
    struct Counts: Equatable {
        var events: Int64
        /// Rows of the column store's event chunks, and of its session rollup (its manifest's counts).
        var columns: Int64
        var sessions: Int64
    }

    func counts(_ db: String) throws -> Counts {
        let database = try SQLiteDatabase(path: db, readOnly: true)
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: db + ".columns/manifest.json"))) as? [String: Any])
        func rows(_ key: String) -> Int64 { Int64(((manifest[key] as? [[String: Any]]) ?? []).reduce(0) { $0 + (($1["rows"] as? Int) ?? 0) }) }
        return Counts(events: try database.scalar("SELECT COUNT(*) FROM events") ?? -1, columns: rows("chunks"), sessions: rows("session_chunks"))
    }

    func purge(_ db: String, _ period: String) throws -> [String: Any] {
        let run = try CommandRunner.run(["purge", "--db", db, "--older-than", period])
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test("purge deletes what was received before the period, counts it, and keeps the column store in step; a period that is not one is refused")
    func purgeByReceivedTime() throws {
        let files = try SimulatedFiles("handz-purge-cli")
        defer { files.remove() }
        #expect(try CommandRunner.run(["import", "--db", files.db, "--engine", "sqlite", files.events]).status == 0)
        // `import` sealed the column store: the purge has chunks and rollup rows to keep in step.
        let stored = try counts(files.db)
        #expect(stored.events > 0 && stored.columns == stored.events && stored.sessions > 0)

        // Everything was received just now: nothing is older than 400 days.
        #expect(try purge(files.db, "400d")["events"] as? Int == 0)
        #expect(try counts(files.db) == stored)

        // Received 400 days ago (as if imported then; an edit outside the journal, so the column
        // store is sealed again from nothing): 13 months keeps none.
        let database = try SQLiteDatabase(path: files.db)
        let shift = "received_time_ms = received_time_ms - \(400 * 86_400_000)"
        try database.execute("UPDATE events SET \(shift); UPDATE batches SET \(shift)")
        let purged = try purge(files.db, "13mo")
        #expect(purged["events"] as? Int == Int(stored.events))
        #expect(try counts(files.db) == Counts(events: 0, columns: 0, sessions: 0))
        #expect(try purge(files.db, "13mo")["events"] as? Int == 0, "a repeat deletes nothing")

        for period in ["off", "13", "soon", "-1d"] {
            #expect(try CommandRunner.run(["purge", "--db", files.db, "--older-than", period]).status != 0, "\(period)")
        }
    }
}

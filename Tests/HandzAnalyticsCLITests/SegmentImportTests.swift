import Foundation
import HandzTestSupport
import Testing

/// `import --engine segments` (issue 34 §5): the same file imported into a segment store and into
/// the SQLite engine's gives the same counts and the same funnels and KPIs, and the analysis
/// commands read the segment store's chunks.
@Suite(.serialized) struct SegmentImportTests {
    @Test("import into the segment engine: the SQLite engine's counts, funnels and KPIs; a second import stores nothing twice; the engine cannot change")
    func importAgrees() throws {
        let files = try SimulatedFiles("handz-segment-import")
        defer { files.remove() }
        let segments = files.directory.appendingPathComponent("segments.sqlite").path
        let sqlite = try CommandRunner.run(["import", "--db", files.db, files.events])
        #expect(sqlite.status == 0, "\(sqlite.stderr)")
        let imported = try CommandRunner.run(["import", "--db", segments, "--engine", "segments", files.events])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == sqlite.stdout, "the same lines accepted, duplicated and rejected")
        #expect(FileManager.default.fileExists(atPath: segments + ".segments"))

        let range = ["--from", "2026-03-01", "--to", "2026-03-15"]
        func numbers(_ db: String) throws -> [String] {
            try ["F0", "F1", "F2", "F3", "F4"].map { try CommandRunner.run(["funnel", $0, "--db", db, "--format", "json"] + range).stdout }
                + [try CommandRunner.run(["kpi", "--all", "--db", db, "--format", "json"] + range).stdout]
        }
        let expected = try numbers(files.db)
        #expect(expected.allSatisfy { !$0.isEmpty })
        #expect(try numbers(segments) == expected)
        let stored = { (db: String) throws -> Int? in
            (try JSONSerialization.jsonObject(with: Data(try CommandRunner.run(["stats", "--db", db]).stdout.utf8)) as? [String: Any])?["stored_events"] as? Int
        }
        #expect(try stored(segments) == (try stored(files.db)))

        // Again: every event a duplicate, nothing stored twice.
        let again = try CommandRunner.run(["import", "--db", segments, files.events])
        let summary = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any]
        #expect(summary?["accepted"] as? Int == 0 && (summary?["duplicates"] as? Int ?? 0) > 0)
        #expect(try stored(segments) == (try stored(files.db)))
        #expect(try CommandRunner.run(["import", "--db", segments, "--engine", "sqlite", files.events]).status != 0)
    }
}

import Foundation
import HandzSQLite
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
        let sqlite = try CommandRunner.run(["import", "--db", files.db, "--engine", "sqlite", files.events])
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

    @Test("an import past the segment writer's bound on unsealed events seals what it wrote and goes on: every event stored once, the same counts and funnels")
    func importPastTheUnsealedBound() throws {
        let files = try SimulatedFiles("handz-segment-import-bound")
        defer { files.remove() }
        let whole = files.directory.appendingPathComponent("whole.sqlite").path
        let bounded = files.directory.appendingPathComponent("bounded.sqlite").path
        let expected = try CommandRunner.run(["import", "--db", whole, files.events])
        #expect(expected.status == 0, "\(expected.stderr)")
        // A bound far below the file's events: the writer refuses batches again and again.
        let imported = try CommandRunner.run(["import", "--db", bounded, "--max-unsealed", "500", files.events])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == expected.stdout, "the same lines accepted, duplicated and rejected")
        let stored = { (db: String) throws -> Int? in
            (try JSONSerialization.jsonObject(with: Data(try CommandRunner.run(["stats", "--db", db]).stdout.utf8)) as? [String: Any])?["stored_events"] as? Int
        }
        #expect(try stored(bounded) == (try stored(whole)) && (try stored(whole) ?? 0) > 1_500)
        let range = ["--from", "2026-03-01", "--to", "2026-03-15"]
        for funnel in ["F0", "F1"] {
            let numbers = try [whole, bounded].map { try CommandRunner.run(["funnel", funnel, "--db", $0, "--format", "json"] + range).stdout }
            #expect(numbers[0] == numbers[1] && !numbers[0].isEmpty, "\(funnel)")
        }
    }

    /// Every row of `table` in `file`, as text, ordered by `order`; `columns` picks them. With
    /// `sortingKeys`, a JSON object's keys are put in order: the chunks give `properties` back with
    /// its keys sorted, equal as JSON to what the client sent but not the same text (ChunkExport).
    static func rows(_ file: String, _ columns: String, from table: String, orderBy order: String, sortingKeys: Bool = false) throws -> [[String?]] {
        let database = try SQLiteDatabase(path: file, readOnly: true)
        let count = try database.prepare("SELECT \(columns) FROM \(table) LIMIT 0").columnCount
        return try database.prepare("SELECT \(columns) FROM \(table) ORDER BY \(order)").query { row in
            try (0..<count).map { column in
                if row.isBlob(column) { return row.blob(column).map { String($0, radix: 16) }.joined() }
                guard sortingKeys, let text = row.text(column), text.hasPrefix("{") else { return row.text(column) }
                let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
                return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
            }
        }
    }

    @Test("a new store is a segment store; export sqlite gives the SQLite log's events table; layer --engine segments upgrades a store of the SQLite log and --rebuild refuses a segment store")
    func defaultEngineExportAndUpgrade() throws {
        let files = try SimulatedFiles("handz-segment-default")
        defer { files.remove() }
        let path = { (name: String) in files.directory.appendingPathComponent(name).path }
        let (fresh, log) = (path("fresh.sqlite"), path("log.sqlite"))
        #expect(try CommandRunner.run(["import", "--db", fresh, files.events]).status == 0)
        #expect(FileManager.default.fileExists(atPath: fresh + ".segments"), "a new store is made with the segment log")
        #expect(try CommandRunner.run(["import", "--db", log, "--engine", "sqlite", files.events]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: log + ".segments"))
        #expect(try SQLiteDatabase(path: fresh, readOnly: true).scalar("SELECT COUNT(*) FROM events") == 0)

        // The export of the SQLite log is its events table, row for row and byte for byte.
        let everyColumn = "*"
        let logTable = try Self.rows(log, everyColumn, from: "events", orderBy: "event_id")
        #expect(logTable.count > 1_000)
        #expect(try CommandRunner.run(["export", "sqlite", "--db", log, "--out", path("log-export.sqlite")]).status == 0)
        #expect(try Self.rows(path("log-export.sqlite"), everyColumn, from: "events", orderBy: "event_id") == logTable)
        // The segment store's holds the same events; only the times of receipt differ (two imports).
        #expect(try CommandRunner.run(["export", "sqlite", "--db", fresh, "--out", path("fresh-export.sqlite")]).status == 0)
        let sent = "event_id, event_name, event_time_ms, install_id, session_id, user_id, user_state, app_version, build_number, platform, "
            + "os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties"
        #expect(try Self.rows(path("fresh-export.sqlite"), sent, from: "events", orderBy: "event_id", sortingKeys: true)
            == (try Self.rows(log, sent, from: "events", orderBy: "event_id", sortingKeys: true)))
        #expect(try Self.rows(path("fresh-export.sqlite"), "install_id, first_app_open_ms", from: "install_first_seen", orderBy: "install_id")
            == (try Self.rows(log, "install_id, first_app_open_ms", from: "install_first_seen", orderBy: "install_id")))
        let again = try CommandRunner.run(["export", "sqlite", "--db", fresh, "--out", path("fresh-export.sqlite")])
        #expect(again.status != 0 && again.stderr.contains("exists"), "an export never writes into an existing file")

        // --rebuild would discard a segment store's only copy of its events: refused, and nothing lost.
        let funnel = { (db: String) in try CommandRunner.run(["funnel", "F0", "--db", db, "--format", "json", "--from", "2026-03-01", "--to", "2026-03-15"]).stdout }
        let freshAnswer = try funnel(fresh)
        #expect(try CommandRunner.run(["layer", "--db", fresh, "--rebuild"]).status != 0)
        #expect(try funnel(fresh) == freshAnswer)

        // The one-way upgrade: the log emptied, its events in the chunks, the answers unchanged.
        let logAnswer = try funnel(log)
        let upgraded = try CommandRunner.run(["layer", "--db", log, "--engine", "segments"])
        #expect(upgraded.status == 0, "\(upgraded.stderr)")
        #expect(upgraded.stdout.contains("\"engine\":\"segments\""))
        #expect(FileManager.default.fileExists(atPath: log + ".segments"))
        #expect(try SQLiteDatabase(path: log, readOnly: true).scalar("SELECT COUNT(*) FROM events") == 0)
        #expect(try funnel(log) == logAnswer)
        #expect(try CommandRunner.run(["export", "sqlite", "--db", log, "--out", path("upgraded-export.sqlite")]).status == 0)
        #expect(try Self.rows(path("upgraded-export.sqlite"), everyColumn, from: "events", orderBy: "event_id", sortingKeys: true)
            == (try Self.rows(path("log-export.sqlite"), everyColumn, from: "events", orderBy: "event_id", sortingKeys: true)))
        #expect(try CommandRunner.run(["serve", "--db", log, "--engine", "sqlite", "--port", "0"]).status != 0, "no way back")
    }
}

import Foundation
import HandzAnalyticsCore
import HandzTestSupport
import Testing

/// `backup` and `restore` of a segment engine's store (issue 34 §5; issue 37 §1 for the SQLite
/// engine's): backups taken while a real `serve --engine segments` stores batches restore to
/// stores whose receipts and events agree; a quiet backup restored answers as the live store does;
/// a restore over the store forgets again every user forgotten after the backup, to the byte.
@Suite(.serialized) struct SegmentBackupTests {
    func cli(_ arguments: [String]) throws -> CommandRunner.Result { try CommandRunner.run(arguments, timeout: 180) }

    /// `stats`' figures for a store.
    func stats(_ db: String) throws -> [String: Any] {
        let run = try cli(["stats", "--db", db, "--from", "2020-01-01", "--to", "2030-01-01"])
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test("backups of a segment store taken while serve stores batches restore whole; a quiet one answers as the live store")
    func backupUnderLoad() async throws {
        let files = try SimulatedFiles("handz-segment-backup")
        defer { files.remove() }
        let served = try ServedFiles(files, arguments: ["--engine", "segments"])
        let (server, live) = (served.server, served.live)
        let load = Task { try await served.sendAll(batchEvents: 20) }
        // Up to 4 backups while it runs, each restored and checked against the acknowledgements around it.
        let (backups, underLoad) = try served.backupsWhileSending(files, count: 4, extension: "backup")
        for (index, backup) in backups.enumerated() {
            let permissions = try FileManager.default.attributesOfItem(atPath: backup.path)[.posixPermissions] as? Int
            #expect(permissions == 0o700, "a backup is readable by its owner only")
            let restored = files.directory.appendingPathComponent("under-load-\(index).sqlite").path
            let restore = try cli(["restore", "--from", backup.path, "--db", restored])
            #expect(restore.status == 0, "\(restore.stderr)")
            // Whole requests: every accepted event stored, the receipts within what was sent.
            let figures = try stats(restored)
            let stored = figures["stored_events"] as? Int ?? -1, accepted = figures["accepted"] as? Int ?? -2
            #expect(stored == accepted)
            let received = accepted + (figures["duplicates"] as? Int ?? 0), (before, after) = (backup.acknowledgedBefore, backup.acknowledgedAfter)
            #expect(received >= before && received <= after + 20, "\(before) ≤ \(received) ≤ \(after) + one batch in flight")
            #expect(backup.run.stdout.contains("\"events\":\(stored)"), "\(backup.run.stdout)")
        }
        try await load.value
        #expect(underLoad >= 1, "at least one backup ran while batches were being stored")

        let final = files.directory.appendingPathComponent("final.backup").path
        #expect(try cli(["backup", "--db", live, "--out", final]).status == 0)
        // Written again over the older backup: replaced whole.
        #expect(try cli(["backup", "--db", live, "--out", final]).status == 0)
        server.stop()
        let restored = files.directory.appendingPathComponent("restored.sqlite").path
        try RestoreChecks.restoreToNewPath(backup: final, restored: restored, answeringAs: live)
        // Dedupe came back with the store: it holds every event already.
        let again = try cli(["import", "--db", restored, files.events])
        let summary = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any]
        #expect(summary?["accepted"] as? Int == 0, "every event is already there: dedupe came back with the store")
    }

    @Test("a restore over a segment store forgets again the users forgotten after the backup, to the byte, and keeps the replaced store")
    func restoreReappliesDeletions() throws {
        let files = try SimulatedFiles("handz-segment-restore")
        defer { files.remove() }
        #expect(try cli(["import", "--db", files.db, "--engine", "segments", files.events]).status == 0)
        let backup = files.directory.appendingPathComponent("store.backup").path
        #expect(try cli(["backup", "--db", files.db, "--out", backup]).status == 0)

        // Two users with events, forgotten after the backup.
        let users = try signedInUsers(files.events, limit: 2)
        try #require(users.count == 2)
        for user in users { #expect(try cli(["forget-user", "--db", files.db, user]).status == 0) }
        let afterDeletion = try RestoreChecks.answers(files.db)
        #expect(!StoredBytes.filesHolding(users, under: URL(fileURLWithPath: backup)).isEmpty, "the backup still holds the users")

        let outcome = try RestoreChecks.restoreOverTwoForgottenUsers(backup: backup, db: files.db)
        #expect(try RestoreChecks.answers(files.db) == afterDeletion, "the same answers as the store it replaced")

        // No file of the restored store holds the users (the SQLite file keeps no user id either).
        for suffix in ["", "-wal"] { #expect(!StoredBytes.file(files.db + suffix, holdsAnyOf: users), "events.sqlite\(suffix)") }
        for directory in ["segments", "ids", "columns"] {
            #expect(StoredBytes.filesHolding(users, under: URL(fileURLWithPath: files.db + "." + directory)) == [], "\(directory)")
        }
        let replaced = try #require(outcome["replaced"] as? String)
        #expect(FileManager.default.fileExists(atPath: replaced) && FileManager.default.fileExists(atPath: replaced + ".segments"))
        #expect(!FileManager.default.fileExists(atPath: files.db + ".restoring"))
        #expect(!FileManager.default.fileExists(atPath: files.db + ".restoring.segments"))
    }

    @Test("after serve is killed with events still in segments, the analysis commands seal them before they answer")
    func analysisSealsWhatWaits() async throws {
        let files = try SimulatedFiles("handz-segment-killed")
        defer { files.remove() }
        // No background seal: every acknowledged event stays in the segments until something seals.
        let served = try ServedFiles(files, arguments: ["--engine", "segments", "--column-seal-interval", "0"])
        try await served.sendAll(batchEvents: 100)
        _ = served.server.stop(signal: SIGKILL)
        let live = served.live
        #expect(try cli(["import", "--db", files.db, "--engine", "segments", files.events]).status == 0)
        // F0 and the KPIs as for the same events imported (the receipts differ: 100 events a request here).
        #expect(try RestoreChecks.answers(live).prefix(2) == (try RestoreChecks.answers(files.db)).prefix(2), "the killed store answers as the same events imported")
        #expect(try stats(live)["stored_events"] as? Int == (try stats(files.db))["stored_events"] as? Int)
    }

    /// Signed-in users of a simulated file, those with the most events first.
    func signedInUsers(_ events: String, limit: Int) throws -> [String] {
        var counts: [String: Int] = [:]
        for line in try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let user = object["user_id"] as? String else { continue }
            counts[user.lowercased(), default: 0] += 1
        }
        return counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(limit).map(\.key)
    }
}

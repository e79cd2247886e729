import Foundation
import HandzAnalyticsCore
import HandzSQLite
import HandzTestSupport
import Testing

/// `backup` and `restore` (issue 37 §1) against a real `serve` taking batches over HTTP: backups
/// taken under load are consistent snapshots; a restored backup answers the same funnels, KPIs and
/// counts as the store it came from; a restore re-applies every deletion recorded after the
/// backup; and what must be refused is.
@Suite(.serialized) struct BackupRestoreTests {
    func count(_ db: String, _ sql: String) throws -> Int64 { try SQLiteDatabase(path: db, readOnly: true).scalar(sql) ?? -1 }

    func cli(_ arguments: [String]) throws -> CommandRunner.Result { try CommandRunner.run(arguments, timeout: 180) }

    /// Imports the simulated events into `files.db` and backs the store up; returns the backup's path.
    func importedAndBackedUp(_ files: SimulatedFiles) throws -> String {
        #expect(try cli(["import", "--db", files.db, "--engine", "sqlite", files.events]).status == 0)
        let backup = files.directory.appendingPathComponent("backup.sqlite").path
        #expect(try cli(["backup", "--db", files.db, "--out", backup]).status == 0)
        return backup
    }

    /// Signed-in users of a store, those with the most events first.
    func userIDs(_ db: String, limit: Int) throws -> [String] {
        try SQLiteDatabase(path: db, readOnly: true)
            .prepare("SELECT lower(user_id) FROM events WHERE user_id IS NOT NULL GROUP BY 1 ORDER BY COUNT(*) DESC, 1 LIMIT \(limit)").query([], { $0.text(0) ?? "" })
    }

    @Test("backups taken while serve stores batches hold whole batches only; the restored store answers the same funnels, KPIs and counts")
    func backupUnderLoad() async throws {
        let files = try SimulatedFiles("handz-backup")
        defer { files.remove() }
        // The SQLite log's backup (one file); a segment store's is SegmentBackupTests'.
        let served = try ServedFiles(files, arguments: ["--engine", "sqlite"])
        let (server, live) = (served.server, served.live)
        // The load: every simulated event in batches of 20, one after another, counted as acknowledged.
        let load = Task { try await served.sendAll(batchEvents: 20) }
        // Backups while it runs (at most 10), each checked against the acknowledgements around it.
        let (backups, underLoad) = try served.backupsWhileSending(files, count: 10, extension: "sqlite")
        for backup in backups {
            let path = backup.path
            #expect(try SQLiteDatabase(path: path, readOnly: true).isIntact())
            // Whole batches: the receipts' accepted and duplicate counts add up to the events stored
            // (each batch's events and its receipt commit together); nothing past what was sent.
            let stored = try count(path, "SELECT COUNT(*) FROM events")
            #expect(stored == (try count(path, "SELECT COALESCE(SUM(accepted), 0) FROM batches")))
            let received = try count(path, "SELECT COALESCE(SUM(accepted + duplicates), 0) FROM batches"), (before, after) = (backup.acknowledgedBefore, backup.acknowledgedAfter)
            #expect(received >= Int64(before) && received <= Int64(after) + 20, "\(before) ≤ \(received) ≤ \(after) + one batch in flight")
            #expect(backup.run.stdout.contains("\"events\":\(stored)"))
            let mode = try #require(try SQLiteDatabase(path: path, readOnly: true).prepare("PRAGMA journal_mode").query([], { $0.text(0) }).first)
            #expect(mode == "delete", "a backup is one self-contained file")
            let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
        }
        try await load.value
        #expect(underLoad >= 1, "at least one backup ran while batches were being stored")

        // Quiet now: a backup of the whole store, restored to a new path, answers as the live store does.
        let final = files.directory.appendingPathComponent("final.sqlite").path
        #expect(try cli(["backup", "--db", live, "--out", final]).status == 0)
        server.stop()
        let restored = files.directory.appendingPathComponent("restored.sqlite").path
        try RestoreChecks.restoreToNewPath(backup: final, restored: restored, answeringAs: live)
        #expect(try count(restored, "SELECT COUNT(*) FROM events") == (try count(live, "SELECT COUNT(*) FROM events")))
    }

    @Test("a restore over the store re-applies the deletions recorded after the backup: the user stays forgotten, the ledger and audit carry over, the replaced store is kept")
    func restoreReappliesDeletions() throws {
        let files = try SimulatedFiles("handz-restore")
        defer { files.remove() }
        let backup = try importedAndBackedUp(files)

        // After the backup: two users are forgotten (the store's first deletions, so the backup has no audit salt yet).
        let users = try userIDs(files.db, limit: 2)
        try #require(users.count == 2)
        for user in users { #expect(try cli(["forget-user", "--db", files.db, user]).status == 0) }
        let afterDeletion = try RestoreChecks.answers(files.db)
        #expect(try count(backup, "SELECT COUNT(*) FROM events WHERE lower(user_id) = '\(users[0])'") > 0, "the backup still holds the user")

        let outcome = try RestoreChecks.restoreOverTwoForgottenUsers(backup: backup, db: files.db)
        for user in users {
            #expect(try count(files.db, "SELECT COUNT(*) FROM events WHERE lower(user_id) = '\(user)'") == 0, "forgotten again")
        }
        #expect(try count(files.db, "SELECT COUNT(*) FROM deletion_requests WHERE state = 'completed' AND user_id IS NULL") == 2)
        #expect(try count(files.db, "SELECT COUNT(*) FROM privacy_audit WHERE action = 'forget_user'") >= 2)
        #expect(try RestoreChecks.answers(files.db) == afterDeletion, "the same answers as the store it replaced")
        let replaced = try #require(outcome["replaced"] as? String)
        #expect(FileManager.default.fileExists(atPath: replaced))
        #expect(!FileManager.default.fileExists(atPath: files.db + ".restoring"))
    }

    @Test("refused: a store in use by serve, a backup that is not SQLite or is damaged, a backup from a newer binary, a ledger from another store")
    func refusals() throws {
        let files = try SimulatedFiles("handz-restore-refusals")
        defer { files.remove() }
        let backup = try importedAndBackedUp(files)

        // serve holds the store: the restore is refused and changes nothing.
        let directory = files.directory.appendingPathComponent("server")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let server = try ServerProcess(directory: directory)
        let serving = directory.appendingPathComponent("handz-events.sqlite").path
        let inUse = try cli(["restore", "--from", backup, "--db", serving, "--replace"])
        server.stop()
        #expect(inUse.status != 0 && inUse.stderr.contains("store_in_use"), "\(inUse.stderr)")
        #expect(try count(serving, "SELECT COUNT(*) FROM events") == 0)

        let target = files.directory.appendingPathComponent("target.sqlite").path
        let garbage = files.directory.appendingPathComponent("garbage.sqlite").path
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: garbage))
        let unreadable = try cli(["restore", "--from", garbage, "--db", target])
        #expect(unreadable.status != 0 && unreadable.stderr.contains("backup_unreadable"), "\(unreadable.stderr)")

        // A damaged backup: a page in the middle overwritten.
        let damaged = files.directory.appendingPathComponent("damaged.sqlite").path
        var bytes = try Data(contentsOf: URL(fileURLWithPath: backup))
        let page = 4096, middle = (bytes.count / page / 2) * page
        bytes.replaceSubrange(middle..<(middle + page), with: Data(repeating: 0xFF, count: page))
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let corrupt = try cli(["restore", "--from", damaged, "--db", target])
        #expect(corrupt.status != 0 && (corrupt.stderr.contains("backup_corrupt") || corrupt.stderr.contains("backup_unreadable")), "\(corrupt.stderr)")

        // A backup a newer binary migrated: refused as the store itself would be.
        let newer = files.directory.appendingPathComponent("newer.sqlite").path
        try FileManager.default.copyItem(atPath: backup, toPath: newer)
        try SQLiteDatabase(path: newer).execute("INSERT INTO schema_migrations(version, applied_time_ms, description) VALUES (999, 0, 'from the future')")
        let future = try cli(["restore", "--from", newer, "--db", target])
        #expect(future.status != 0 && future.stderr.contains("newer_schema"), "\(future.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target) && !FileManager.default.fileExists(atPath: target + ".restoring"))

        // Another store's ledger (another audit salt) cannot be matched against this backup's users.
        let other = try SimulatedFiles("handz-restore-other")
        defer { other.remove() }
        #expect(try cli(["import", "--db", other.db, "--engine", "sqlite", other.events]).status == 0)
        let someone = try userIDs(other.db, limit: 1)
        #expect(try cli(["forget-user", "--db", other.db, try #require(someone.first)]).status == 0)
        let me = try userIDs(files.db, limit: 1)
        #expect(try cli(["forget-user", "--db", files.db, try #require(me.first)]).status == 0)
        let salted = files.directory.appendingPathComponent("salted.sqlite").path
        #expect(try cli(["backup", "--db", files.db, "--out", salted]).status == 0)
        let mismatch = try cli(["restore", "--from", salted, "--db", other.db, "--replace"])
        #expect(mismatch.status != 0 && mismatch.stderr.contains("different_store"), "\(mismatch.stderr)")
        #expect(try count(other.db, "SELECT COUNT(*) FROM deletion_requests") == 1, "the other store is untouched")
    }
}

import ArgumentParser
import Foundation
import HandzColumnStore
import HandzLake
import HandzLifecycle
import HandzSQLite
import HandzStore

/// `handz-analytics backup --db PATH --out FILE`: an online backup of the embedded store
/// (issue 37 §1), safe while `serve` writes to it.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a consistent backup of the embedded store while it is being written.",
        discussion: """
        One snapshot of the SQLite file (every batch wholly in it or wholly out), written beside FILE and renamed \
        into place, readable by its owner only. The column store is not copied (restore rebuilds it); the keys file \
        is not either (back it up with the server's other secrets). A PostgreSQL store is backed up with its own \
        tools (pg_dump, pg_basebackup). Prints {"events","bytes","schema_version","took_ms"}.
        """
    )

    @Option(help: "SQLite database file.")
    var db = "handz-events.sqlite"

    @Option(help: "The backup file to write (replaced only once the new backup is complete).")
    var out: String

    func validate() throws {
        try requireExistingDatabase(db)
        // A segment store's events are in its segments and chunks, not in the SQLite file: a
        // snapshot of the file alone would be a backup without events (issue 34, not yet covered).
        if isSegmentStore(db) {
            throw ValidationError("""
                \(db) is a segment engine's store: its events are not in the SQLite file, and `backup` does not cover them yet. \
                Stop serve and copy the file with its .segments, .ids and .columns directories.
                """)
        }
    }

    func run() async throws {
        let started = ContinuousClock.now
        let written = try StoreBackup.write(database: db, to: out)
        let took = started.duration(to: .now)
        print("{\"events\":\(written.events),\"bytes\":\(written.bytes),\"schema_version\":\(written.schemaVersion),\"took_ms\":\(took.components.seconds * 1000 + took.components.attoseconds / 1_000_000_000_000_000)}")
    }
}

/// `handz-analytics restore --from FILE --db PATH [--replace]`: a backup back into service, with
/// every deletion recorded since the backup carried out again (issue 37 §1; CH34 §8).
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a backup as the embedded store, re-applying every deletion recorded since the backup.",
        discussion: """
        Stop serve first. The backup is checked and copied beside PATH, migrated if it is older (a newer one is refused), \
        and given the deletion ledger of the store it replaces: every user deleted since the backup is de-identified \
        again before the restored store is used. The replaced store is kept as PATH.replaced-TIME; the column store \
        is rebuilt from the log. A request whose lake step waits for --lake stays pending (pending_requests) until serve --lake or \
        `deletions run --lake` finishes it. Prints {"events","pending_requests","copied_requests","reapplied_requests",\
        "events_deidentified","replaced"}.
        """
    )

    @Option(help: "The backup file (written by `handz-analytics backup`).")
    var from: String

    @Option(help: "SQLite database file to restore into.")
    var db = "handz-events.sqlite"

    @Flag(help: "Replace an existing store at --db (kept as --db.replaced-TIME).")
    var replace = false

    @Option(help: "The event lake written from this store: partitions holding re-deleted users are rewritten too.")
    var lake: String?

    func validate() throws {
        guard FileManager.default.fileExists(atPath: from) else { throw ValidationError("no backup at \(from)") }
        if isSegmentStore(db) {
            throw ValidationError("\(db) is a segment engine's store; a backup of the SQLite log cannot replace it (issue 34: not covered yet)")
        }
    }

    func run() async throws {
        let exists = FileManager.default.fileExists(atPath: db)
        if exists && !replace {
            throw StoreBackupError(.targetExists, "\(db) exists; pass --replace to replace it (it is kept as \(db).replaced-TIME)")
        }
        var locks = exists ? try StoreInUse.lockForReplacement(db: db) : []
        defer { StoreInUse.release(locks) }

        let staging = db + ".restoring"
        try StoreBackup.stage(backup: from, at: staging)
        var adoption = LedgerAdoption()
        var deidentified = 0, pending = 0
        do {
            let store = try SQLiteEventStore(path: staging)
            if exists { adoption = try store.adoptDeletionLedgerNow(ofReplaced: db) }
            if adoption.reappliedRequests > 0 || lake != nil {
                var worker = DeletionWorker(store: store, lake: lake.map { LakeExporter(root: URL(fileURLWithPath: $0)) },
                                            owner: "\(ProcessInfo.processInfo.hostName)/\(getpid())/restore",
                                            clock: { Int64(Date().timeIntervalSince1970 * 1000) })
                worker.oldVersionsDelayMs = 0
                var requests: [String: DeletionRequest] = [:]
                for outcome in try await worker.runUntilIdle() { if let request = outcome.request { requests[request.id] = request } }
                deidentified = requests.values.reduce(0) { $0 + $1.eventsDeidentified }
                pending = requests.values.filter { $0.state == .pending }.count
            }
            await store.close()
        } catch {
            StoreBackup.removeDatabaseFiles(staging)
            throw error
        }

        var replacedAs: String?
        if exists {
            let stamp = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withYear, .withMonth, .withDay, .withTime])
            let aside = "\(db).replaced-\(stamp)"
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: db + suffix) {
                guard rename(db + suffix, aside + suffix) == 0 else { throw StoreBackupError(.ioFailed, "cannot move \(db)\(suffix) aside") }
            }
            unlink(db + "-shm")
            ColumnStoreCopy.discard(forDatabase: db)
            replacedAs = aside
        }
        guard rename(staging, db) == 0 else { throw StoreBackupError(.ioFailed, "cannot rename \(staging) to \(db)") }
        StoreBackup.removeDatabaseFiles(staging)
        try StoreBackup.sync((db as NSString).deletingLastPathComponent)
        StoreInUse.release(locks)
        locks = []
        try ColumnSealing.seal(db: db)
        let events = try SQLiteDatabase(path: db, readOnly: true).scalar("SELECT COUNT(*) FROM events") ?? 0
        print("{\"events\":\(events),\"pending_requests\":\(pending),\"copied_requests\":\(adoption.copiedRequests),\"reapplied_requests\":\(adoption.reappliedRequests),"
              + "\"events_deidentified\":\(deidentified),\"replaced\":\(replacedAs.map { "\"\($0)\"" } ?? "null")}")
    }
}

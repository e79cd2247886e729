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
        is not either (back it up with the server's other secrets). A segment engine's store (issue 34) is backed up \
        as a directory at FILE holding a whole store: its segments, id runs, SQLite file and column store, copied in \
        an order its recovery makes whole. A PostgreSQL store is backed up with its own \
        tools (pg_dump, pg_basebackup). Prints {"events","bytes","schema_version","took_ms"}.
        """
    )

    @Option(help: "SQLite database file.")
    var db = "handz-events.sqlite"

    @Option(help: "The backup file to write (a directory for a segment engine's store; replaced only once the new backup is complete).")
    var out: String

    func validate() throws {
        try requireExistingDatabase(db)
    }

    func run() async throws {
        let started = ContinuousClock.now
        // A segment store's events are in its segments and chunks, not in the SQLite file.
        let written = isSegmentStore(db) ? try SegmentStoreBackup.write(database: db, to: out) : try StoreBackup.write(database: db, to: out)
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
        is rebuilt from the log. A segment store's backup (a directory) is restored with its segments, id runs and \
        chunks, its segments recovered and sealed; the store it replaces keeps its directories beside PATH.replaced-TIME. A request whose lake step waits for --lake stays pending (pending_requests) until serve --lake or \
        `deletions run --lake` finishes it. Prints {"events","pending_requests","copied_requests","reapplied_requests",\
        "events_deidentified","replaced"}.
        """
    )

    @Option(help: "The backup (written by `handz-analytics backup`: a file, or a directory for a segment engine's store).")
    var from: String

    @Option(help: "SQLite database file to restore into.")
    var db = "handz-events.sqlite"

    @Flag(help: "Replace an existing store at --db (kept as --db.replaced-TIME).")
    var replace = false

    @Option(help: "The event lake written from this store: partitions holding re-deleted users are rewritten too.")
    var lake: String?

    func validate() throws {
        guard FileManager.default.fileExists(atPath: from) else { throw ValidationError("no backup at \(from)") }
    }

    func run() async throws {
        let exists = FileManager.default.fileExists(atPath: db)
        if exists && !replace {
            throw StoreBackupError(.targetExists, "\(db) exists; pass --replace to replace it (it is kept as \(db).replaced-TIME)")
        }
        var locks = exists ? try StoreInUse.lockForReplacement(db: db) : []
        defer { StoreInUse.release(locks) }

        let staging = db + ".restoring"
        let segmentBackup = SegmentStoreBackup.isBackup(from)
        if segmentBackup { try SegmentStoreBackup.stage(backup: from, at: staging) } else { try StoreBackup.stage(backup: from, at: staging) }
        var adoption = LedgerAdoption()
        var deidentified = 0, pending = 0
        var segmentEvents: Int?
        do {
            let store: any EventStore
            if segmentBackup {
                // Opening it recovers its segments; they are sealed before it is put in place
                // (reading its user ids, needed only to adopt a replaced store's ledger, seals too).
                let segments = try SegmentEventStore(path: staging) { FileHandle.standardError.write(Data("note: \($0)\n".utf8)) }
                store = segments
                if exists {
                    adoption = try segments.tables.adoptDeletionLedgerNow(ofReplaced: db, userIDs: try segments.storedUserIDsNow())
                } else {
                    try segments.sealIfNeeded()
                }
            } else {
                let sqlite = try SQLiteEventStore(path: staging)
                store = sqlite
                if exists { adoption = try sqlite.adoptDeletionLedgerNow(ofReplaced: db) }
            }
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
            if segmentBackup { segmentEvents = try await store.stats(fromMs: 0, toMs: Int64.max).storedEvents }
            await store.close()
        } catch {
            if segmentBackup { SegmentStoreBackup.removeStore(staging) } else { StoreBackup.removeDatabaseFiles(staging) }
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
            if isSegmentStore(db) {
                // A segment store's directories hold its events: kept aside with its file.
                for directory in SegmentStoreBackup.directories where FileManager.default.fileExists(atPath: directory(db)) {
                    guard rename(directory(db), directory(aside)) == 0 else { throw StoreBackupError(.ioFailed, "cannot move \(directory(db)) aside") }
                }
            } else {
                ColumnStoreCopy.discard(forDatabase: db)
            }
            replacedAs = aside
        }
        if segmentBackup {
            // The directories first: until the SQLite file is in place there is no store at `db`.
            for directory in SegmentStoreBackup.directories {
                guard rename(directory(staging), directory(db)) == 0 else { throw StoreBackupError(.ioFailed, "cannot rename \(directory(staging)) to \(directory(db))") }
            }
            unlink(staging + ".columns.lock")
        }
        guard rename(staging, db) == 0 else { throw StoreBackupError(.ioFailed, "cannot rename \(staging) to \(db)") }
        StoreBackup.removeDatabaseFiles(staging)
        try StoreBackup.sync((db as NSString).deletingLastPathComponent)
        StoreInUse.release(locks)
        locks = []
        let events: Int64
        if let segmentEvents {
            events = Int64(segmentEvents)
        } else {
            _ = try ColumnSealing.seal(db: db)
            events = try SQLiteDatabase(path: db, readOnly: true).scalar("SELECT COUNT(*) FROM events") ?? 0
        }
        print("{\"events\":\(events),\"pending_requests\":\(pending),\"copied_requests\":\(adoption.copiedRequests),\"reapplied_requests\":\(adoption.reappliedRequests),"
              + "\"events_deidentified\":\(deidentified),\"replaced\":\(replacedAs.map { "\"\($0)\"" } ?? "null")}")
    }
}

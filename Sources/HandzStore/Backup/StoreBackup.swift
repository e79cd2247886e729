import Foundation
import HandzSQLite

/// Online backups of the embedded store and the first half of a restore (issue 37 §1).
///
/// **Backup**: one consistent snapshot of the SQLite file while `serve` goes on writing
/// (`SQLiteDatabase.copy(to:attempts:)` in HandzSQLite: every page inside one read transaction, so each
/// batch is wholly in the copy or wholly out), written beside the destination, switched to a
/// rollback journal so the backup is one self-contained file, checked, synced, made readable by
/// its owner only (it holds the log's events and the audit salt) and renamed into place: a crash
/// leaves the previous backup, never half of a new one.
///
/// What a backup holds: the log (`events`), receipts, the quarantine's counts, the deletion
/// ledger and the privacy audit, the audit salt, the schema version. Not the column store
/// (`DB.columns/`, rebuilt from the log by the restore) and not the keys file (secrets, kept and
/// backed up by whoever keeps the server's secrets).
public enum StoreBackup {
    /// What a backup wrote.
    public struct Written: Sendable, Equatable {
        public var events: Int64
        public var bytes: Int64
        public var schemaVersion: Int64
    }

    /// Writes a consistent copy of the store at `database` to `destination` (replacing an older
    /// backup there only once the new one is complete).
    public static func write(database: String, to destination: String) throws -> Written {
        guard FileManager.default.fileExists(atPath: database) else { throw StoreBackupError(.ioFailed, "no store at \(database)") }
        let partial = destination + ".partial-\(getpid())"
        removeDatabaseFiles(partial)
        var written = Written(events: 0, bytes: 0, schemaVersion: 0)
        do {
            let source = try SQLiteDatabase(path: database, readOnly: true)
            let copy = try SQLiteDatabase(path: partial)
            try source.copy(to: copy)
            try copy.execute("PRAGMA journal_mode = DELETE")
            guard try copy.isIntact() else { throw StoreBackupError(.backupCorrupt, "the copy of \(database) failed its check; the store itself may be damaged (PRAGMA integrity_check)") }
            written.events = try copy.scalar("SELECT COUNT(*) FROM events") ?? 0
            written.schemaVersion = try copy.scalar("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") ?? 0
        } catch {
            removeDatabaseFiles(partial)
            throw error
        }
        chmod(partial, 0o600)
        try sync(partial)
        guard rename(partial, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            removeDatabaseFiles(partial)
            throw StoreBackupError(.ioFailed, "cannot rename the backup into \(destination): \(reason)")
        }
        try sync((destination as NSString).deletingLastPathComponent)
        written.bytes = Int64((try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? NSNumber)?.int64Value ?? 0)
        return written
    }

    /// Copies the backup at `backup` to a new database at `staging` (whatever was there is
    /// removed first), after checking the backup is intact. The caller opens `staging` as a
    /// store (which migrates an older backup and refuses a newer one), adopts the replaced
    /// store's deletion ledger, and renames it into place.
    public static func stage(backup: String, at staging: String) throws {
        removeDatabaseFiles(staging)
        let source: SQLiteDatabase
        do {
            source = try SQLiteDatabase(path: backup, readOnly: true)
            _ = try source.scalar("SELECT COUNT(*) FROM sqlite_schema")
        } catch {
            throw StoreBackupError(.backupUnreadable, "\(backup) is not a readable SQLite database")
        }
        guard (try? source.isIntact()) == true else { throw StoreBackupError(.backupCorrupt, "\(backup) fails SQLite's check (PRAGMA quick_check)") }
        do {
            let copy = try SQLiteDatabase(path: staging)
            try source.copy(to: copy)
        } catch {
            removeDatabaseFiles(staging)
            throw error
        }
        chmod(staging, 0o600)
    }

    /// Removes a database file and the journal files SQLite keeps beside it.
    public static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// `fsync` of a file or a directory.
    public static func sync(_ path: String) throws {
        let descriptor = open(path.isEmpty ? "." : path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreBackupError(.ioFailed, "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw StoreBackupError(.ioFailed, "cannot sync \(path): \(String(cString: strerror(errno)))") }
    }
}

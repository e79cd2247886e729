/// Why a backup or a restore of the embedded store was refused, with a stable code. Messages name
/// files the operator gave and what to do; never an event value, a key or a user id.
public struct StoreBackupError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The backup file cannot be opened or read as SQLite.
        case backupUnreadable = "backup_unreadable"
        /// The backup file fails SQLite's structural check (`PRAGMA quick_check`).
        case backupCorrupt = "backup_corrupt"
        /// The restore target exists and `--replace` was not given.
        case targetExists = "target_exists"
        /// Another process (`serve`, `layer`, `import`) holds the store being replaced.
        case storeInUse = "store_in_use"
        /// The store being replaced has a different audit salt from the backup's: it is another
        /// store, so its deletion ledger cannot be matched against the backup's users.
        case differentStore = "different_store"
        /// Creating, syncing or renaming a file failed.
        case ioFailed = "io_failed"
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        (self.code, self.detail) = (code, detail)
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}

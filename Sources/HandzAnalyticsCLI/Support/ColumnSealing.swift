import Foundation
import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzStore

/// The column store beside an embedded store (issue 33): sealed by the commands that write the
/// store (`import`, `layer`), read by the analysis commands when it holds exactly the log's events.
enum ColumnSealing {
    /// Seals the log's new events into `db`'s column store, with progress on standard error.
    @discardableResult
    static func seal(db: String) throws -> LogSealer.Outcome {
        let progress = ProgressLine()
        defer { progress.finish() }
        let database = try SQLiteDatabase(path: db)
        let writer = try ColumnStoreWriter(directory: ColumnStore.directory(forDatabase: db))
        return try LogSealer().seal(database, into: writer) { rows in progress.update("sealing into column chunks: \(rows) events") }
    }

    /// The column store of `db` when it is current (sealed through the log's last event, nothing
    /// changed since); nil otherwise, and the caller reads the SQLite copies.
    static func currentStore(db: String) throws -> ColumnStore? {
        let directory = ColumnStore.directory(forDatabase: db)
        guard FileManager.default.fileExists(atPath: directory + "/" + ColumnManifest.fileName) else { return nil }
        let store = try ColumnStore(directory: directory)
        let log = try SQLiteDatabase(path: db, readOnly: true)
        return try store.isCurrent(with: log) ? store : nil
    }
}

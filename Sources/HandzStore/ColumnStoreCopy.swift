import Foundation

/// Where the embedded store's column copy lives (HandzColumnStore, issue 33), and what the log's
/// own deletions ask of it (CH34 §8.3: the deletion reaches every copy).
///
/// A deletion or rewrite of the log is journaled in its own transaction (``LogRewrites``); the
/// copy's next seal rewrites only the chunks it touches (copy on write) and records the log's
/// change counter it now matches in its manifest (`log_changes`). The deletion worker seals right
/// after its store step (`DeletionWorker.afterStoreStep`); the old-versions step then makes sure
/// that happened: a copy still behind the log's counter is removed
/// (``discardIfBehind(forDatabase:logChanges:)``), and the next seal rebuilds it from the log as
/// it now stands.
public enum ColumnStoreCopy {
    /// `handz-events.sqlite` → `handz-events.sqlite.columns`.
    public static func directory(forDatabase path: String) -> String { path + ".columns" }

    /// The log change counter the copy's manifest records, or nil when there is no copy (or no
    /// readable manifest). Reads only the manifest's `log_changes` member, the one fact of the
    /// column store's format this module relies on.
    public static func appliedLogChanges(forDatabase path: String) -> Int64? {
        guard let data = FileManager.default.contents(atPath: directory(forDatabase: path) + "/manifest.json"),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let changes = object["log_changes"] as? NSNumber else { return nil }
        return changes.int64Value
    }

    /// Removes the copy when it exists and has not applied the log's changes through `logChanges`.
    /// True when it was removed.
    @discardableResult
    public static func discardIfBehind(forDatabase path: String, logChanges: Int64) -> Bool {
        guard FileManager.default.fileExists(atPath: directory(forDatabase: path)) else { return false }
        if let applied = appliedLogChanges(forDatabase: path), applied >= logChanges { return false }
        discard(forDatabase: path)
        return true
    }

    /// Removes the copy of `path`'s store, if any. Readers that had it open keep their open files
    /// until they close them, as with any unlinked file. The directory is first renamed away (one
    /// atomic step), so a seal under way in another task or process can no longer write into it:
    /// its next file operation fails.
    public static func discard(forDatabase path: String) {
        let live = directory(forDatabase: path)
        let doomed = live + ".discarded-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let target = rename(live, doomed) == 0 ? doomed : live
        try? FileManager.default.removeItem(atPath: target)
    }
}

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
    /// readable manifest). This module reads only the manifest's `log_changes` and the file names
    /// it lists (HandzColumnStore's `ColumnManifest` owns the format).
    public static func appliedLogChanges(forDatabase path: String) -> Int64? {
        (manifest(forDatabase: path)?["log_changes"] as? NSNumber)?.int64Value
    }

    /// Removes the copy when it exists and has not applied the log's changes through `logChanges`,
    /// or holds a file its manifest does not list (a writer killed after publishing, before it
    /// removed the files it replaced, which may hold the old values); and any copy a crash left
    /// half discarded. True when the copy was removed.
    @discardableResult
    public static func discardIfBehind(forDatabase path: String, logChanges: Int64) -> Bool {
        let live = directory(forDatabase: path)
        let parent = (live as NSString).deletingLastPathComponent
        let prefix = (live as NSString).lastPathComponent + ".discarded-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.isEmpty ? "." : parent)) ?? [] where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(atPath: (parent as NSString).appendingPathComponent(name))
        }
        guard FileManager.default.fileExists(atPath: live) else { return false }
        if let manifest = manifest(forDatabase: path), let applied = (manifest["log_changes"] as? NSNumber)?.int64Value, applied >= logChanges,
           !holdsUnlistedFiles(live, manifest) {
            return false
        }
        discard(forDatabase: path)
        return true
    }

    /// Whether the copy holds files its manifest does not list while no writer has it open. A
    /// writer at work has unlisted files of its own (parts not yet published), and it removed a
    /// dead writer's leftovers when it opened (`ColumnStoreWriter`), so then the answer is false.
    static func holdsUnlistedFiles(_ live: String, _ manifest: [String: Any]) -> Bool {
        let lock = open(live + ".lock", O_RDWR | O_CLOEXEC)
        guard lock >= 0 else { return false }
        defer { close(lock) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { return false }
        defer { flock(lock, LOCK_UN) }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: live)) ?? []
        return !Set(files).isSubset(of: listedFiles(manifest))
    }

    /// The copy's manifest as JSON, nil when there is none or it does not parse.
    static func manifest(forDatabase path: String) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: directory(forDatabase: path) + "/manifest.json") else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// The files a manifest lists: itself, its two dictionaries and its chunks (`uuids.file`,
    /// `strings.file`, `chunks[].file`, `session_chunks[].file`).
    static func listedFiles(_ manifest: [String: Any]) -> Set<String> {
        var files: Set<String> = ["manifest.json"]
        for key in ["uuids", "strings"] { if let file = (manifest[key] as? [String: Any])?["file"] as? String { files.insert(file) } }
        for key in ["chunks", "session_chunks"] {
            for entry in (manifest[key] as? [[String: Any]]) ?? [] { if let file = entry["file"] as? String { files.insert(file) } }
        }
        return files
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

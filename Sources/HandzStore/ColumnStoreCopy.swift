import Foundation

/// Where the embedded store's column copy lives (HandzColumnStore, issue 33), and the one rule
/// the log's own deletions apply to it: a copy that still holds rows the log has de-identified or
/// purged is removed in the same step, right after the log's transaction commits (CH34 §8.3: the
/// deletion reaches every copy; the next seal rebuilds it from the log as it now stands). The
/// column engine's own rewrite of only the affected chunks replaces this in a later step.
public enum ColumnStoreCopy {
    /// `handz-events.sqlite` → `handz-events.sqlite.columns`.
    public static func directory(forDatabase path: String) -> String { path + ".columns" }

    /// Removes the copy of `path`'s store, if any. Readers that had it open keep their open files
    /// until they close them, as with any unlinked file. The directory is first renamed away (one
    /// atomic step), so a seal under way in another task or process can no longer write into it:
    /// its next file operation fails, and a seal that read the log before the deletion finds the
    /// log's change counter moved and publishes nothing (`LogSealer`).
    public static func discard(forDatabase path: String) {
        let live = directory(forDatabase: path)
        let doomed = live + ".discarded-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let target = rename(live, doomed) == 0 ? doomed : live
        try? FileManager.default.removeItem(atPath: target)
    }
}

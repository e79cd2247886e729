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
    /// until they close them, as with any unlinked file.
    public static func discard(forDatabase path: String) {
        try? FileManager.default.removeItem(atPath: directory(forDatabase: path))
    }
}

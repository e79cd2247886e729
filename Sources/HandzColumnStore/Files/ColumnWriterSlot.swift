import Foundation
import Synchronization

/// The one ``ColumnStoreWriter`` a process keeps for a column store directory, shared by what
/// writes it: `serve`'s seals (``LiveColumnStore``) and the segment engine's deletions and
/// retention (``SegmentEventStore``). Kept between uses (re-reading the UUID dictionary for each
/// would cost more than a seal), so it holds the directory's lock for the process's life.
public final class ColumnWriterSlot: Sendable {
    public let directory: String
    private let writer = Mutex<ColumnStoreWriter?>(nil)

    public init(directory: String) {
        self.directory = directory
    }

    /// Runs `body` with the writer, opened if none is kept (waiting up to `lockWait` for another
    /// process's); nil when another user in this process held it for longer than `lockWait`.
    /// `body` sets its flag to drop the writer afterwards (a seal abandoned); a throwing body
    /// drops it too (a deletion may have discarded its directory), and the next use opens anew.
    public func withWriter<T>(lockWait: Duration, _ body: (ColumnStoreWriter, inout Bool) throws -> T) throws -> T? {
        let deadline = ContinuousClock.now + lockWait
        while true {
            let outcome: T?? = try writer.withLockIfAvailable { kept throws -> T? in
                // A copy discarded since (``ColumnStoreCopy``'s old-versions check) needs a new writer.
                if let writer = kept, writer.manifest.generation > 0,
                   !FileManager.default.fileExists(atPath: directory + "/" + ColumnManifest.fileName) { kept = nil }
                if kept == nil { kept = try ColumnStoreWriter(directory: directory, lockWait: lockWait) }
                var drop = false
                do {
                    let result = try body(kept!, &drop)
                    if drop { kept = nil }
                    return result
                } catch {
                    kept = nil
                    throw error
                }
            }
            if let outcome { return outcome }
            guard ContinuousClock.now < deadline else { return nil }
            usleep(20_000)
        }
    }

    /// Lets the kept writer go (and its lock): the store is closing.
    public func release() {
        writer.withLock { $0 = nil }
    }
}

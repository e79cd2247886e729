import Foundation

/// Background work of the column store that must yield the cores to ingestion: `serve`'s seals
/// and the segment engine's retention runs (issue 34). Each runs on a thread of its own at
/// ``niceness``, which ends with it: a process without privileges cannot lower a nice value
/// again, so a pooled thread would stay niced for the pages and requests that run on it next. On
/// Linux nice is per thread (`setpriority`'s `who` 0 is the calling thread); elsewhere the work
/// runs at the default priority.
public enum BackgroundThread {
    /// The nice value of the background work (BENCHMARKS.md, "Ingestion beside the background seal").
    public static let niceness: Int32 = 15

    /// Runs `work` on a new thread at ``niceness`` and returns its outcome.
    public static func run<T: Sendable>(name: String, _ work: @escaping @Sendable () throws -> T) async -> Result<T, Error> {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                #if os(Linux)
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
                #endif
                continuation.resume(returning: Result { try work() })
            }
            thread.name = name
            thread.start()
        }
    }
}

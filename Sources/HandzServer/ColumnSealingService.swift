import Foundation
import HandzColumnStore
import Logging
import Metrics
import ServiceLifecycle

/// Seals the embedded store's new events into its column store (issue 33) every `interval`
/// (`serve --column-seal-interval`, 10 s by default),
/// off the request path and off the event loops, and publishes how many stored events are not
/// sealed yet as `handz_analytics_column_lag_rows`. A page seals what is left before it is drawn
/// (``LiveColumnStore``), so this keeps that wait short; after a deletion or retention in the log
/// (CH34) its next seal rewrites the chunks they touch (issue 33 §4).
struct ColumnSealingService: Service {
    let columns: LiveColumnStore
    let interval: Duration
    let logger: Logger
    /// The seal thread's nice value (Linux schedules threads by their own nice).
    static let niceness: Int32 = 15

    /// Runs `work` on a thread of its own at ``niceness``, which ends with it. A process without
    /// privileges cannot lower a nice value again, so a pooled thread would stay niced for the
    /// pages and requests that run on it next. On Linux nice is per thread, and `setpriority`'s
    /// `who` 0 is the calling thread; elsewhere `work` runs at the default priority.
    static func onLowPriorityThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async -> Result<T, Error> {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                #if os(Linux)
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
                #endif
                continuation.resume(returning: Result { try work() })
            }
            thread.name = "handz.column-seal"
            thread.start()
        }
    }

    static let lag = Gauge(label: "handz_analytics_column_lag_rows")

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                // The background seal yields the cores to the writer and the requests
                // (BENCHMARKS.md, "Ingestion beside the background seal").
                let result = await Self.onLowPriorityThread { [columns] () throws -> Int64 in
                    if try columns.unsealedRows() > 0 { try columns.seal(lockWait: .seconds(1)) }
                    return try columns.unsealedRows()
                }
                switch result {
                case .success(let lag): Self.lag.record(Double(lag))
                case .failure(let error): logger.warning("the column store could not be sealed", metadata: ["error_type": "\(type(of: error))"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}

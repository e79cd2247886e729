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
    /// The seal thread's nice value while it seals (Linux schedules threads by their own nice).
    static let niceness: Int32 = 15

    /// Runs `work` on this thread at ``niceness``, then restores the thread's priority. On Linux
    /// nice is per thread, and `setpriority`'s `who` 0 is the calling thread; elsewhere `work`
    /// runs as it is.
    static func atLowPriority<T>(_ work: () throws -> T) rethrows -> T {
        #if os(Linux)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let priority = getpriority(which, 0)
        setpriority(which, 0, niceness)
        defer { setpriority(which, 0, priority) }
        #endif
        return try work()
    }

    static let lag = Gauge(label: "handz_analytics_column_lag_rows")

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let result = await DashboardSite.offLoop { [columns] () throws -> Int64 in
                    // The background seal yields the cores to the writer and the requests
                    // (BENCHMARKS.md, "Ingestion with the background seal").
                    try Self.atLowPriority {
                        if try columns.unsealedRows() > 0 { try columns.seal(lockWait: .seconds(1)) }
                        return try columns.unsealedRows()
                    }
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

import Foundation
import HandzColumnStore
import Logging
import Metrics
import ServiceLifecycle

/// Seals the embedded store's new events into its column store (issue 33) every `interval`
/// (`serve --column-seal-interval`: 10 s by default, 1 s with the segment engine),
/// off the request path and off the event loops, and publishes how many stored events are not
/// sealed yet as `handz_analytics_column_lag_rows`. A page seals what is left before it is drawn
/// (``LiveColumnStore``), so this keeps that wait short; after a deletion or retention in the log
/// (CH34) its next seal rewrites the chunks they touch (issue 33 §4).
struct ColumnSealingService: Service {
    let columns: LiveColumnStore
    let interval: Duration
    let logger: Logger
    static let lag = Gauge(label: "handz_analytics_column_lag_rows")

    /// How long to wait before the next seal: seals start on a cadence of `interval`, so a
    /// seal's own duration is not added to the wait of the events that arrive while it runs. A
    /// segment opened when a seal starts is sealed by the next, so an acknowledged event waits
    /// at most about `interval` plus one seal (issue 34, "sealing keeps up"; BENCHMARKS.md). A
    /// seal that took longer than `interval` is followed at once by the next.
    static func pause(interval: Duration, sealTook elapsed: Duration) -> Duration {
        max(.zero, interval - elapsed)
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            let clock = ContinuousClock()
            while !Task.isCancelled {
                let started = clock.now
                // The background seal yields the cores to the writer and the requests
                // (BENCHMARKS.md, "Ingestion beside the background seal").
                let result = await BackgroundThread.run(name: "handz.column-seal") { [columns] () throws -> Int64 in
                    if try columns.unsealedRows() > 0 { try columns.seal(lockWait: .seconds(1)) }
                    return try columns.unsealedRows()
                }
                switch result {
                case .success(let lag): Self.lag.record(Double(lag))
                case .failure(let error): logger.warning("the column store could not be sealed", metadata: ["error_type": "\(type(of: error))"])
                }
                try? await Task.sleep(for: Self.pause(interval: interval, sealTook: clock.now - started))
            }
        }
    }
}

import HandzColumnStore
import Logging
import Metrics
import ServiceLifecycle

/// Seals the embedded store's new events into its column store (issue 33) every ``interval``,
/// off the request path and off the event loops, and publishes how many stored events are not
/// sealed yet as `handz_analytics_column_lag_rows`. A page seals what is left before it is drawn
/// (``LiveColumnStore``), so this keeps that wait short; after a deletion or retention in the log
/// (CH34) its next seal rewrites the chunks they touch (issue 33 §4).
struct ColumnSealingService: Service {
    let columns: LiveColumnStore
    let logger: Logger

    static let interval = Duration.seconds(10)
    static let lag = Gauge(label: "handz_analytics_column_lag_rows")

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let result = await DashboardSite.offLoop { [columns] () throws -> Int64 in
                    if try columns.unsealedRows() > 0 { try columns.seal(lockWait: .seconds(1)) }
                    return try columns.unsealedRows()
                }
                switch result {
                case .success(let lag): Self.lag.record(Double(lag))
                case .failure(let error): logger.warning("the column store could not be sealed", metadata: ["error_type": "\(type(of: error))"])
                }
                try? await Task.sleep(for: Self.interval)
            }
        }
    }
}

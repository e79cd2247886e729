import HandzStore
import Logging
import Metrics
import ServiceLifecycle

/// `serve` on the embedded store keeps the analytical layer (issue 15) close behind the log: one
/// short fold transaction at a time (``AnalyticalLayer/defaultBatchRows`` rows) while it is
/// behind, so the ingestion writer never waits long for the write lock, then a pause of
/// ``idlePause`` once it has caught up. Queries catch up whatever is left before they read, so
/// this bounds their wait, not their correctness. The lag is published as
/// `handz_analytics_layer_lag_rows`.
struct AnalyticalLayerService: Service {
    let store: SQLiteEventStore
    let logger: Logger

    static let idlePause = Duration.seconds(1)
    static let lag = Gauge(label: "handz_analytics_layer_lag_rows")

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var failing = false
            while !Task.isCancelled {
                do {
                    let status = try await store.catchUpAnalyticalLayer(maxBatches: 1)
                    Self.lag.record(Double(status.lagRows))
                    if failing { logger.info("analytical layer catch-up resumed") }
                    failing = false
                    // Behind: let the writer in, then the next batch. Caught up: wait for new events.
                    try? await Task.sleep(for: status.lagRows > 0 ? .milliseconds(5) : Self.idlePause)
                } catch {
                    if !failing { logger.warning("analytical layer catch-up failed; retried every second", metadata: ["error": "\(type(of: error))"]) }
                    failing = true
                    try? await Task.sleep(for: Self.idlePause)
                }
            }
        }
    }
}

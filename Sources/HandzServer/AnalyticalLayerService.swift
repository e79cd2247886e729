import HandzStore
import Metrics
import ServiceLifecycle

/// Publishes how far the embedded store's analytical layer (issue 15) is behind its log, as
/// `handz_analytics_layer_lag_rows`, every ``interval``. The store's writer folds new events into
/// the layer whenever no request is waiting (``StoreConfiguration/idleFoldRows``), on its own
/// connection: a second folding connection was measured to halve ingestion, because it competed
/// for SQLite's one write lock (BENCHMARKS.md, "The store split"). Queries fold whatever is left
/// before they read.
struct AnalyticalLayerService: Service {
    let store: SQLiteEventStore

    static let interval = Duration.seconds(1)
    static let lag = Gauge(label: "handz_analytics_layer_lag_rows")

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                if let lag = try? await store.analyticalLayerLag() { Self.lag.record(Double(lag)) }
                try? await Task.sleep(for: Self.interval)
            }
        }
    }
}

import Metrics
import Prometheus

/// The process-wide Prometheus registry behind `GET /metrics`. swift-metrics can be bootstrapped
/// once per process, so every server in the process (tests start several) shares it.
public enum ServerMetrics {
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    /// Bootstraps the metrics system (idempotent).
    public static func bootstrap() { _ = registry }
}

import HandzAnalyticsCore
import Metrics

/// The endpoint's metrics (swift-metrics; the server exports them as Prometheus text). Label
/// values are status codes, outcomes and error codes — never event values or key ids.
final class IngestMetrics: Sendable {
    private let requests: Locked<[Int: Counter]> = Locked([:])
    private let rejectedByCode: Locked<[String: Counter]> = Locked([:])
    let accepted = Counter(label: "handz_events_total", dimensions: [("outcome", "accepted")])
    let duplicates = Counter(label: "handz_events_total", dimensions: [("outcome", "duplicate")])
    let rejected = Counter(label: "handz_events_total", dimensions: [("outcome", "rejected")])
    let rateLimitedKey = Counter(label: "handz_rate_limited_total", dimensions: [("scope", "key")])
    let rateLimitedInstall = Counter(label: "handz_rate_limited_total", dimensions: [("scope", "install")])
    let rateLimitedConcurrency = Counter(label: "handz_rate_limited_total", dimensions: [("scope", "concurrency")])
    /// Accepted events stored without their user_id because that user was deleted (issue 14).
    let deletedUserIDsDropped = Counter(label: "handz_deleted_user_ids_dropped_total")
    let batchDuration = Metrics.Timer(label: "handz_batch_duration_seconds")
    let commitDuration = Metrics.Timer(label: "handz_store_commit_seconds")
    /// Requests holding a processing slot now (at most `--max-concurrent-requests`): the
    /// endpoint's queue depth; at the limit, new batches get 429.
    let inProgress = Gauge(label: "handz_requests_in_progress")

    /// The statuses the endpoint answers with (openapi.yaml).
    static let statuses = [200, 202, 304, 400, 401, 403, 404, 408, 413, 415, 422, 429, 503]

    /// Every rejection code's and answer status's counter exists from the start, at 0:
    /// Prometheus's `rate()` sees only the increase between two samples of a series, so a
    /// counter created at its first rejection would hide that rejection from the operator's
    /// dashboard (deploy/grafana/handz-operations.json).
    init() {
        rejectedByCode.withLock { counters in
            for code in ValidationErrorCode.allCases {
                counters[code.rawValue] = Counter(label: "handz_events_rejected_total", dimensions: [("code", code.rawValue)])
            }
        }
        requests.withLock { counters in
            for status in Self.statuses { counters[status] = Counter(label: "handz_requests_total", dimensions: [("status", String(status))]) }
        }
    }

    func request(status: Int) {
        requests.withLock { counters in
            if counters[status] == nil { counters[status] = Counter(label: "handz_requests_total", dimensions: [("status", String(status))]) }
            return counters[status]!
        }.increment()
    }

    func rejected(code: String) {
        rejectedByCode.withLock { counters in
            if counters[code] == nil { counters[code] = Counter(label: "handz_events_rejected_total", dimensions: [("code", code)]) }
            return counters[code]!
        }.increment()
    }
}

import Foundation
import HandzStore
import Logging
import Metrics
import ServiceLifecycle

/// `serve --follow URL`: an analysis node's follower (issue 36 §1–§2), a round every `interval`
/// — the shared store's new events into the node's segment store, then its new deletion
/// requests carried out on the copy. The node's column sealing and pages work on the copy as on
/// one node. A failed round (the database restarting, the network) is logged without values and
/// retried, backing off to 10 s; nothing is lost, since the cursor only moves past what the copy
/// holds.
struct FollowService: Service {
    let follower: StoreFollower
    let interval: Duration
    let logger: Logger
    /// Seconds between the start of the last round that reached the horizon and now.
    static let lag = Gauge(label: "handz_analytics_follow_lag_seconds")
    static let copied = Counter(label: "handz_analytics_follow_events_total")

    func run() async throws {
        await cancelWhenGracefulShutdown {
            let clock = ContinuousClock()
            var failures = 0
            var caughtUp = clock.now
            let owner = "\(ProcessInfo.processInfo.hostName)/\(getpid())/follow"
            while !Task.isCancelled {
                let started = clock.now
                do {
                    // Counted page by page, as each becomes durable in the copy: a round that
                    // catches up on many pages shows its progress, not one step at its end.
                    var counted = 0
                    try await follower.round { sofar, _ in
                        Self.copied.increment(by: Int64(sofar.copied - counted))
                        counted = sofar.copied
                    }
                    try await follower.applyDeletions(owner: owner)
                    caughtUp = started
                    failures = 0
                } catch {
                    failures += 1
                    logger.warning("following the shared store failed; retrying", metadata: ["error_type": "\(type(of: error))", "failures": "\(failures)"])
                }
                Self.lag.record(Double((clock.now - caughtUp).components.seconds))
                let wait = failures == 0 ? interval : min(.seconds(10), .milliseconds(250 << min(failures, 6)))
                try? await Task.sleep(for: max(.zero, wait - (failures == 0 ? clock.now - started : .zero)))
            }
        }
    }
}

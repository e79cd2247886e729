import Foundation
import HandzAnalyticsCore
import HandzIngest
import HandzLifecycle
import HandzStore
import Logging
import Metrics
import ServiceLifecycle

/// `serve` keeps the privacy promises without an operator (issue 14): it works the deletion ledger
/// (``DeletionWorker``: at once when a request arrives, and every `deletionInterval` for retries,
/// restarts and requests another node recorded), applies the retention period every
/// `retentionInterval` (``RetentionRunner``), and publishes the ages an alert watches on `/health`
/// and `/metrics`. Logs carry request ids, step names, counts and failure codes — never a user id.
struct LifecycleService: Service {
    let worker: DeletionWorker
    let retention: RetentionRunner
    let service: IngestService
    let deletionInterval: Duration
    let retentionInterval: Duration
    let logger: Logger

    /// Prometheus gauges: receive times (unix seconds, 0 when there is none) so an alert can fire on
    /// `time() - handz_oldest_pending_deletion_timestamp_seconds > 20 * 86400`.
    static let oldestEvent = Gauge(label: "handz_oldest_event_timestamp_seconds")
    static let oldestPendingDeletion = Gauge(label: "handz_oldest_pending_deletion_timestamp_seconds")
    static let pendingDeletions = Gauge(label: "handz_deletions_pending")

    func run() async throws {
        let wake = Locked(false)
        service.deletionRequested.withLock { $0 = { wake.withLock { $0 = true } } }
        service.lifecycle.withLock { $0.retention = retention.policy }
        if retention.policy == .off {
            logger.warning("retention is OFF: stored events, receipts, quarantine and lake partitions are kept forever (CH33-P3 asks for 13, 24 or 36 months)")
        }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await refreshDeletedSubjects() }
                group.addTask { await workAndRetain(wake: wake) }
            }
        }
    }

    /// Keeps the ingest path's ``DeletedSubjects`` current every `deletionInterval`, apart from the
    /// worker, so a long lake rewrite or `VACUUM FULL` never delays it (the worker's store step
    /// waits two intervals on that promise).
    func refreshDeletedSubjects() async {
        while !Task.isCancelled {
            do {
                try await service.refreshDeletedSubjects(nowMs: worker.clock())
            } catch {
                logger.warning("could not refresh the deleted users from the ledger; retried at the next tick")
            }
            try? await Task.sleep(for: deletionInterval)
        }
    }

    /// The deletion worker's passes and the retention runs.
    func workAndRetain(wake: Locked<Bool>) async {
        var nextRetention = ContinuousClock.now
        var oldestEventKnown = false
        while !Task.isCancelled {
            if ContinuousClock.now >= nextRetention {
                await applyRetention()
                oldestEventKnown = false
                nextRetention = ContinuousClock.now + retentionInterval
            }
            await workDeletions()
            // The oldest event changes only when retention runs (new events are received now),
            // so its full scan runs then, not every tick.
            await publishStatus(includeOldestEvent: !oldestEventKnown || service.lifecycle.withLock { $0.status.oldestEventMs == nil })
            oldestEventKnown = true
            let deadline = ContinuousClock.now + deletionInterval
            while ContinuousClock.now < deadline, !Task.isCancelled, !wake.withLock({ woken in defer { woken = false }; return woken }) {
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    func applyRetention() async {
        do {
            guard let outcome = try await retention.run(nowMs: worker.clock()) else { return }
            logger.info("retention applied", metadata: [
                "retention": "\(retention.policy)", "cutoff_ms": "\(outcome.cutoffMs)", "events": "\(outcome.store.events)",
                "rejected_events": "\(outcome.store.rejectedEvents)", "batches": "\(outcome.store.batches)",
                "deletion_requests": "\(outcome.store.deletionRequests)", "lake_partitions": "\(outcome.lakePartitionsRemoved)",
            ])
        } catch {
            logger.error("retention failed; retried at the next run", metadata: ["error": "\(type(of: error))"])
        }
    }

    func workDeletions() async {
        do {
            for outcome in try await worker.runUntilIdle() {
                guard let request = outcome.request else { continue }
                var metadata: Logger.Metadata = [
                    "request_id": "\(request.id)", "state": "\(request.state.rawValue)", "store": "\(request.storeStep.rawValue)",
                    "old_versions": "\(request.oldVersionsStep.rawValue)", "lake": "\(request.lakeStep.rawValue)",
                    "events_deidentified": "\(request.eventsDeidentified)",
                ]
                if let failure = outcome.failure {
                    metadata["failure"] = "\(failure.rawValue)"
                    logger.warning("deletion step failed; retried later", metadata: metadata)
                } else {
                    logger.info("deletion progressed", metadata: metadata)
                }
            }
        } catch {
            logger.error("deletion worker could not reach the store; retried at the next tick")
        }
    }

    func publishStatus(includeOldestEvent: Bool) async {
        guard var status = try? await worker.store.lifecycleStatus(includeOldestEvent: includeOldestEvent) else { return }
        let previous = service.lifecycle.withLock { $0.status }
        if !includeOldestEvent { status.oldestEventMs = previous.oldestEventMs }
        service.lifecycle.withLock { $0.status = status }
        Self.oldestEvent.record(Double(status.oldestEventMs ?? 0) / 1000)
        Self.oldestPendingDeletion.record(Double(status.oldestPendingDeletionMs ?? 0) / 1000)
        Self.pendingDeletions.record(status.pendingDeletions)
    }
}

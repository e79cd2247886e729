import Foundation

/// Flushing on demand and the developer diagnostics (CH33 §12).
extension AnalyticsClient {
    /// Commits what is pending and asks for an upload now (if analytics is on).
    public func flush() {
        commitPending()
        lock.lock()
        uploadRequested = true
        lock.broadcast()
        lock.unlock()
    }

    /// Waits (bounded) until the queue is empty, delivery stopped, or `timeout` passes. Returns true
    /// when the queue is empty. For tools and tests; an app never waits.
    @discardableResult
    public func drain(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            flush()
            if diagnostics().queuedEvents == 0 && lock.withLock({ pending.isEmpty }) { return true }
            if lock.withLock({ sendingStopped }) { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return diagnostics().queuedEvents == 0
    }


    /// The developer diagnostics snapshot (CH33 §12).
    public func diagnostics() -> ClientDiagnostics {
        commitPending()
        let empty: (count: Int, bytes: Int, oldestMs: Int64?) = (0, 0, nil)
        let (summary, counters) = withDatabase { (try queue.summary(), try queue.counters()) } ?? (empty, [:])
        let now = clock()
        return lock.withLock {
            ClientDiagnostics(
                enabled: enabled, queuedEvents: summary.count, queuedBytes: summary.bytes,
                oldestEventAge: summary.oldestMs.map { now.timeIntervalSince1970 - Double($0) / 1000 },
                recentEvents: recent, lastUploadStatus: lastStatus, lastError: lastError, nextRetry: nextAttempt,
                sendingStopped: sendingStopped, counters: counters,
                flushInterval: settings.flushInterval, maxBatchEvents: settings.maxBatchEvents, disabledByServer: settings.disabled
            )
        }
    }

    /// The diagnostics of a queue file without starting a client (no threads, no network).
    public static func inspect(queuePath: String, now: Date = Date()) throws -> ClientDiagnostics {
        let queue = try EventQueue(path: queuePath)
        let summary = try queue.summary()
        return ClientDiagnostics(
            enabled: try queue.state("enabled") != "false", queuedEvents: summary.count, queuedBytes: summary.bytes,
            oldestEventAge: summary.oldestMs.map { now.timeIntervalSince1970 - Double($0) / 1000 }, recentEvents: [],
            lastUploadStatus: nil, lastError: nil, nextRetry: nil, sendingStopped: false, counters: try queue.counters()
        )
    }

    /// Events recovered and lost when a damaged queue file was rebuilt at start, if it was.
    public var recovery: (recovered: Int, lost: Int)? { queue.recovery }


    /// Times the committer and uploader threads woke from a wait so far: an idle client (nothing
    /// pending or queued) does not wake at all (`handz-bench client-idle` measures the process).
    var wakeUps: Int { lock.withLock { wakeUpCount } }
}

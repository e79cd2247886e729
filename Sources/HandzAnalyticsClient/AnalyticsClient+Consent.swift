import Foundation

/// Consent: the analytics and crash-report toggles (CH33 §2.2, CH33-P8).
extension AnalyticsClient {
    public var isEnabled: Bool { lock.withLock { enabled } }

    /// Turns analytics on or off (Settings > Privacy, CH33 §2.2). Off: cancels the upload in
    /// flight, purges the queue, records nothing new, and no request starts after this returns.
    /// On: only events tracked from now on are sent (no backfill, CH33-P8).
    public func setEnabled(_ on: Bool) {
        lock.lock()
        if !on {
            enabled = false
            queueHasEvents = false
            uploadRequested = false
            attempt = 0
            nextAttempt = nil
            uploadTask?.cancel()
            uploadTask = nil
            let uncommitted = pending.count + pendingInvalid
            pending = []
            pendingInvalid = 0
            lock.unlock()
            withDatabase {
                try queue.purgeForOptOut(uncommitted: uncommitted)
                try queue.setState("enabled", "false")
            }
        } else {
            enabled = true
            attempt = 0
            nextAttempt = nil
            lock.broadcast()
            lock.unlock()
            withDatabase { try queue.setState("enabled", "true") }
        }
    }

    public var isCrashReportingEnabled: Bool { lock.withLock { crashReportsEnabled } }

    /// "Share crash reports" on or off (Settings > Privacy, CH33 §2.2 — may be separate from
    /// analytics). Off: `crash_reported` events are no longer recorded, and those pending or queued
    /// are removed (counted as `purged_crash_opt_out`); every other event is unaffected. On:
    /// crash reports from now on are sent — when analytics is on too.
    public func setCrashReportsEnabled(_ on: Bool) {
        lock.lock()
        crashReportsEnabled = on
        var uncommitted = 0
        if !on {
            let before = pending.count
            pending.removeAll { $0.name == Self.crashEventName }
            uncommitted = before - pending.count
        }
        lock.unlock()
        withDatabase {
            if !on { try queue.purge(named: Self.crashEventName, uncommitted: uncommitted, reason: .purgedCrashOptOut) }
            try queue.setState("crash_reports_enabled", on ? "true" : "false")
        }
    }
}

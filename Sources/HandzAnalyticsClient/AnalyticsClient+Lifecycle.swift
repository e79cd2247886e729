import Foundation
import HandzAnalyticsCore

/// The app's lifecycle and connectivity: sessions, background time, back online (CH33 §3.2).
extension AnalyticsClient {
    /// The app went to the background: upload now — with background time from the platform, so
    /// the system does not suspend the app mid-request — and start timing the session gap.
    public func appDidEnterBackground() {
        commitPending()
        lock.lock()
        backgroundSince = clock()
        backgroundExpired = false
        if backgroundWork == nil, running, enabled, !sendingStopped, !settings.disabled, let platform {
            backgroundWork = platform.beginBackgroundWork(expired: { [weak self] in self?.backgroundTimeExpired() })
        }
        uploadRequested = true
        lock.broadcast()
        lock.unlock()
    }

    /// The system's background time ran out: the upload in flight is cancelled (its events stay
    /// queued and go on the next launch) and the background work ends.
    func backgroundTimeExpired() {
        lock.withLock {
            backgroundExpired = true
            uploadTask?.cancel()
            endBackgroundWork()
        }
    }

    /// Ends the background work, if any. Caller holds `lock`.
    func endBackgroundWork() {
        guard let work = backgroundWork else { return }
        backgroundWork = nil
        platform?.endBackgroundWork(work)
    }

    /// Ends the background work once there is nothing more it can do now: the queue is empty, a
    /// retry is not due yet (the upload failed), sending stopped or analytics is off. Caller
    /// holds `lock`.
    func endBackgroundWorkIfDone() {
        guard backgroundWork != nil else { return }
        let waiting = nextAttempt.map { $0 > clock() } ?? false
        if !queueHasEvents || waiting || sendingStopped || !enabled || !running || settings.disabled { endBackgroundWork() }
    }

    /// Connectivity changed (``PlatformSignalSink``): events take the new `network_state`; back
    /// online, queued events go at once instead of after the backoff offline failures built up.
    public func networkDidChange(_ state: NetworkState) {
        lock.withLock {
            let wasOffline = platformNetwork == .offline
            platformNetwork = state
            guard state != .offline, wasOffline else { return }
            // Only a wait that network failures built up is skipped; a server's Retry-After (the
            // last answer was HTTP) still holds. A change between two connected states (Wi-Fi to
            // cellular) changes nothing.
            if lastStatus == nil {
                attempt = 0
                nextAttempt = nil
            }
            if queueHasEvents { uploadRequested = true }
            lock.broadcast()
        }
    }

    /// The app came back: a new session when it was away longer than `sessionTimeout`.
    public func appWillEnterForeground() {
        lock.lock()
        defer { lock.unlock() }
        let now = clock()
        if backgroundExpired {
            backgroundExpired = false
            lock.broadcast()
        }
        if let since = backgroundSince, now.timeIntervalSince(since) > configuration.sessionTimeout {
            sessionID = UUIDv7.make(milliseconds: UInt64(now.timeIntervalSince1970 * 1000), using: &random)
        }
        backgroundSince = nil
    }

    public var currentSessionID: String { lock.withLock { sessionID } }
    public var currentInstallID: String { lock.withLock { installID } }
}

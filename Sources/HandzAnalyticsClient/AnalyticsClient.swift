import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HandzAnalyticsCore
import HandzCompression
import HandzSigning

/// The Handz analytics client for the iOS app: typed events in, a capped durable queue, honest
/// delivery, and consent that really stops (CH33 §2.2, §9, §12).
///
/// - `track` validates the event on the device (the same validator as the server) and hands it to
///   a background committer; the caller never waits for the disk. Events reach the SQLite queue
///   within `commitInterval`; anything committed survives a crash.
/// - The queue holds at most 1,000 events or 5 MB (CH33-P7); when full the oldest go, counted.
/// - One upload at a time: gzip, signed (HZ2), at most 100 events / 500 KB; retried with
///   exponential backoff and full jitter, honouring `Retry-After`; a 400 splits the batch to
///   isolate the bad event; 401/403 stop sending until the configuration changes — except
///   `clock_skew`: the client measures its clock's offset from the server's time, signs again
///   with the corrected time and goes on (a phone whose clock is off still delivers).
/// - A batch counts as delivered only when a 200 carries a receipt that accounts for every event
///   sent (`accepted + duplicates + rejected`); any other 200 (a captive portal, a proxy's page)
///   keeps the batch queued and is retried with backoff.
/// - `setEnabled(false)` cancels the upload in flight, purges the queue, records nothing new and
///   makes no further request. Turning it back on sends only events tracked afterwards (CH33-P8).
/// - Every event not delivered is counted by reason; `tracked = delivered + dropped + queued`.
public final class AnalyticsClient: PlatformSignalSink, @unchecked Sendable {
    public let configuration: ClientConfiguration
    let context: any DeviceContextProvider
    /// Lifecycle, connectivity and background time (``PlatformSignals``); nil: the app calls
    /// ``appDidEnterBackground()`` and the others itself, and no background time is asked for.
    let platform: (any PlatformSignals)?
    let clock: @Sendable () -> Date
    private let catalog: CompiledCatalog
    private let queue: EventQueue
    private let transport: URLSessionTransport
    private let backoff: Backoff

    /// Protects everything below; never held during disk or network I/O.
    private let lock = NSCondition()
    /// Serialises use of the queue's SQLite connection (committer, uploader, API calls).
    private let databaseLock = NSLock()

    private var enabled: Bool
    /// "Share crash reports" (CH33 §2.2), separate from analytics: off, `crash_reported` is neither
    /// queued nor sent. Analytics off still means nothing at all is sent.
    private var crashReportsEnabled: Bool
    private var validator: EventValidator
    private var pending: [EventQueue.Pending] = []
    private var pendingInvalid = 0
    private var installID: String
    private var sessionID: String
    private var userID: String?
    private var backgroundSince: Date?
    /// Background time held for the flush started when the app left the screen; ended once the
    /// queue is empty, the upload failed or cannot run now, or the time expired.
    private var backgroundWork: BackgroundWork?
    /// The background time ran out: no new request starts until the app is back on screen (the
    /// system may suspend it at any moment).
    private var backgroundExpired = false
    /// Connectivity from the platform, when it reports it: the events' `network_state`.
    private var platformNetwork: NetworkState?
    private var recent: [ClientDiagnostics.RecentEvent] = []
    private var random = SystemRandomNumberGenerator()
    /// Event ids in emission order, also within one millisecond (RFC 9562 §6.2).
    private var eventIDs = MonotonicUUIDv7()

    // Delivery state.
    private var uploadRequested = false
    private var uploadTask: URLSessionDataTask?
    private var attempt = 0
    private var nextAttempt: Date?
    private var splitLimit: Int?
    private var sendingStopped = false
    private var lastStatus: Int?
    private var lastError: String?
    /// Server clock − device clock, measured from a `clock_skew` answer; added to the time a
    /// request is signed with (never to event times, which stay the device's, CH33 §3.2).
    private var clockOffset: TimeInterval = 0
    /// `clock_skew` answers in a row; past a few, retries back off instead of going at once.
    private var skewCorrections = 0
    private var lastFlushCheck: Date
    /// The server's settings as applied (bounded; the local configuration's until fetched), the
    /// ETag they came with, and when they were last fetched.
    private var settings: RemoteSettings
    private var settingsETag: String?
    private var settingsFetchedAt: Date?
    /// Whether the queue may hold events: set by a commit, cleared when a batch comes back empty.
    /// Without events the uploader has no timer to keep (an idle client does not wake).
    private var queueHasEvents = false
    /// Times the committer and uploader woke from a wait (``wakeUps``).
    private var wakeUpCount = 0
    private var running = true
    private var threadsRunning = 2

    /// Opens (or creates) the queue and starts the committer and uploader threads.
    public init(configuration: ClientConfiguration, context: any DeviceContextProvider,
                clock: @escaping @Sendable () -> Date = { Date() },
                platform: (any PlatformSignals)? = AnalyticsClient.defaultPlatform()) throws {
        self.configuration = configuration
        self.context = context
        self.clock = clock
        self.platform = platform
        catalog = CompiledCatalog(CatalogSnapshot.catalog)
        validator = EventValidator(catalog: catalog)
        queue = try EventQueue(path: configuration.queuePath)
        transport = URLSessionTransport(timeout: configuration.requestTimeout)
        backoff = Backoff(base: configuration.backoffBase, cap: configuration.backoffCap)
        if let stored = try queue.state("install_id") {
            installID = stored
        } else {
            installID = UUID().uuidString.lowercased()
            try queue.setState("install_id", installID)
        }
        userID = try queue.state("user_id")
        enabled = try queue.state("enabled") != "false"
        crashReportsEnabled = try queue.state("crash_reports_enabled") != "false"
        sessionID = UUIDv7.make(milliseconds: UInt64(clock().timeIntervalSince1970 * 1000))
        lastFlushCheck = clock()
        queueHasEvents = try queue.summary().count > 0
        // The last settings fetched, until the next fetch (safe when the server is unreachable).
        settings = try queue.state("client_config").flatMap {
            RemoteSettings(json: Data($0.utf8), local: configuration, catalogVersion: CatalogSnapshot.catalog.version)
        } ?? RemoteSettings(local: configuration)
        settingsETag = try queue.state("client_config_etag")
        let committer = Thread { [unowned self] in self.commitLoop() }
        committer.name = "handz-analytics-committer"
        committer.start()
        let uploader = Thread { [unowned self] in self.uploadLoop() }
        uploader.name = "handz-analytics-uploader"
        uploader.start()
        platformNetwork = platform?.networkState
        platform?.start(self)
    }

    /// The catalog version this client was generated from (what a server's kill switch names).
    public static var catalogVersion: String { CatalogSnapshot.catalog.version }

    /// The platform's signals by default: UIKit's on iOS; none elsewhere (``ManualPlatformSignals``
    /// can be passed instead).
    public static func defaultPlatform() -> (any PlatformSignals)? {
        #if canImport(UIKit) && canImport(Network)
        return UIKitPlatformSignals()
        #else
        return nil
        #endif
    }

    /// Stops the threads after a final commit (tests and tools; an app keeps one client for its life).
    public func shutdown() {
        lock.lock()
        running = false
        uploadTask?.cancel()
        endBackgroundWork()
        lock.broadcast()
        while threadsRunning > 0 { lock.wait() }
        lock.unlock()
        commitPending()
    }

    // MARK: Tracking

    /// Tracks a catalogued event. Never blocks on disk or network; an event that fails on-device
    /// validation is counted (`invalid`) and never queued. Does nothing while analytics is off.
    public func track(_ event: some AnalyticsEvent) {
        var writer = PropertyWriter()
        event.writeProperties(to: &writer)
        track(name: type(of: event).eventName, propertiesJSON: writer.object)
    }

    func track(name: String, propertiesJSON: String) {
        let now = clock()
        lock.lock()
        defer { lock.unlock() }
        guard enabled else { return }
        let milliseconds = Int64(now.timeIntervalSince1970 * 1000)
        let eventID = eventIDs.next(milliseconds: UInt64(max(0, milliseconds)), using: &random)
        var body = "{\"event_id\":\"\(eventID)\",\"event_name\":"
        JSONString.append(name, to: &body)
        body += ",\"event_time_utc\":\"\(TimestampFormat.format(seconds: milliseconds / 1000, nanoseconds: Int32(milliseconds % 1000) * 1_000_000))\""
        body += ",\"app_version\":\(JSONString.quoted(context.appVersion)),\"build_number\":\(JSONString.quoted(context.buildNumber))"
        body += ",\"platform\":\"iOS\",\"os_version\":\(JSONString.quoted(context.osVersion)),\"device_model\":\(JSONString.quoted(context.deviceModel))"
        body += ",\"locale\":\(JSONString.quoted(context.locale)),\"timezone\":\(JSONString.quoted(context.timeZone))"
        body += ",\"session_id\":\"\(sessionID)\",\"install_id\":\"\(installID)\",\"user_state\":\"\(context.userState.rawValue)\""
        body += ",\"analytics_opt_in\":true,\"network_state\":\"\((platformNetwork ?? context.networkState).rawValue)\",\"properties\":\(propertiesJSON)}"
        admit(name: name, timeMs: milliseconds, body: Array(body.utf8), userID: userID, now: now)
    }

    /// Queues a complete event as given (for `handz-analytics send` and backfills): validated like
    /// any other; its user_id, if any, is kept apart so sign-out can still remove it.
    public func enqueue(rawEvent bytes: [UInt8]) {
        let now = clock()
        lock.lock()
        defer { lock.unlock() }
        guard enabled else { return }
        var body = bytes
        var user: String?
        if let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], let id = object["user_id"] as? String {
            user = id
            var stripped = object
            stripped["user_id"] = nil
            if let data = try? JSONSerialization.data(withJSONObject: stripped, options: [.sortedKeys]) { body = Array(data) }
        }
        let verdict = validator.validate(Self.withUser(body, user))
        let name = verdict.eventName ?? "unknown"
        let time = now.timeIntervalSince1970 * 1000
        admit(name: name, timeMs: Int64(time), body: body, userID: user, now: now, verdict: verdict)
    }

    /// The event the crash-report toggle governs (sent on the next launch after a crash).
    static let crashEventName = "crash_reported"

    /// Validates (unless already done) and adds to the pending commit. Caller holds `lock`.
    /// A crash report while crash reports are off is not recorded at all, like any event while
    /// analytics is off.
    private func admit(name: String, timeMs: Int64, body: [UInt8], userID: String?, now: Date, verdict: Verdict? = nil) {
        if name == Self.crashEventName && !crashReportsEnabled { return }
        let verdict = verdict ?? validator.validate(Self.withUser(body, userID))
        recent.append(.init(name: name, time: now))
        if recent.count > 10 { recent.removeFirst(recent.count - 10) }
        if verdict.isAccepted {
            pending.append(EventQueue.Pending(name: name, timeMs: timeMs, body: body, userID: userID))
        } else {
            pendingInvalid += 1
        }
        // The first pending event wakes the committer (asleep without a timer while idle); 256
        // wake it early.
        if pending.count + pendingInvalid == 1 || pending.count >= 256 { lock.broadcast() }
    }

    /// The event as sent: `user_id` inserted first when there is one.
    static func withUser(_ body: [UInt8], _ userID: String?) -> [UInt8] {
        guard let userID, body.first == UInt8(ascii: "{") else { return body }
        return Array("{\"user_id\":\"\(userID)\",".utf8) + body.dropFirst()
    }

    // MARK: App lifecycle and identity

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
    private func backgroundTimeExpired() {
        lock.withLock {
            backgroundExpired = true
            uploadTask?.cancel()
            endBackgroundWork()
        }
    }

    /// Ends the background work, if any. Caller holds `lock`.
    private func endBackgroundWork() {
        guard let work = backgroundWork else { return }
        backgroundWork = nil
        platform?.endBackgroundWork(work)
    }

    /// Ends the background work once there is nothing more it can do now: the queue is empty, a
    /// retry is not due yet (the upload failed), sending stopped or analytics is off. Caller
    /// holds `lock`.
    private func endBackgroundWorkIfDone() {
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

    /// Signed in: later events carry `user_id`. Only the account's UUID is accepted (the catalog's
    /// `user_id` is format uuid, CH07): anything else — an email, a name — is refused here and
    /// never written to the device's queue; returns whether it was accepted.
    @discardableResult
    public func signIn(userID: String) -> Bool {
        let normalized = userID.lowercased()
        guard StringFormat.uuid.matches(normalized) else { return false }
        lock.withLock { self.userID = normalized }
        withDatabase { try queue.setState("user_id", normalized) }
        return true
    }

    /// Signed out (CH33 §9): no event sent from now on carries a user_id — new ones, and the ones
    /// still queued or pending.
    public func signOut() {
        lock.withLock {
            userID = nil
            pending = pending.map { EventQueue.Pending(name: $0.name, timeMs: $0.timeMs, body: $0.body, userID: nil) }
        }
        withDatabase {
            try queue.setState("user_id", nil)
            try queue.removeUserIDs()
        }
    }

    /// The account was deleted: the same as signing out here; the app's backend also calls the
    /// endpoint's `DELETE /v1/users/{user_id}` so stored events lose the link too (CH34 §8.3).
    public func accountDeleted() { signOut() }

    // MARK: Consent

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

    /// Times the committer and uploader threads woke from a wait so far: an idle client (nothing
    /// pending or queued) does not wake at all (`handz-bench client-idle` measures the process).
    var wakeUps: Int { lock.withLock { wakeUpCount } }

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

    /// New credentials after a 401/403 (key rotation): sending resumes.
    public func updateCredentials(keyID: String, secret: [UInt8]) {
        lock.withLock {
            credentials = (keyID, secret)
            sendingStopped = false
            lastError = nil
            lock.broadcast()
        }
    }

    private lazy var credentials: (keyID: String, secret: [UInt8]) = (configuration.keyID, configuration.secret)

    // MARK: Flushing

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

    // MARK: Diagnostics

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

    // MARK: Committer

    @discardableResult
    private func withDatabase<T>(_ body: () throws -> T) -> T? {
        databaseLock.lock()
        defer { databaseLock.unlock() }
        do {
            return try body()
        } catch {
            lock.withLock { lastError = "queue storage error" }
            return nil
        }
    }

    private func commitPending() {
        databaseLock.lock()
        defer { databaseLock.unlock() }
        let (batch, invalid) = lock.withLock { () -> ([EventQueue.Pending], Int) in
            defer { pending = []; pendingInvalid = 0 }
            return (pending, pendingInvalid)
        }
        guard !batch.isEmpty || invalid > 0 else { return }
        do {
            try queue.commit(batch, invalid: invalid, maxEvents: configuration.maxQueuedEvents, maxBytes: configuration.maxQueuedBytes)
            if !batch.isEmpty {
                lock.withLock {
                    // The flush timer starts with the first queued event.
                    if !queueHasEvents { queueHasEvents = true; lastFlushCheck = clock() }
                    lock.broadcast()
                }
            }
        } catch {
            // Not written: put them back for the next attempt rather than lose them.
            lock.withLock {
                pending = batch + pending
                pendingInvalid += invalid
                lastError = "queue storage error"
            }
        }
    }

    /// Sleeps without a timer while nothing is pending (an idle app is not woken, issue 17); once
    /// an event is tracked, gives the burst `commitInterval` to gather and writes it in one
    /// transaction.
    private func commitLoop() {
        while true {
            lock.lock()
            while running && pending.isEmpty && pendingInvalid == 0 {
                lock.wait()
                wakeUpCount += 1
            }
            if running {
                _ = lock.wait(until: Date().addingTimeInterval(configuration.commitInterval))
                wakeUpCount += 1
            }
            let stop = !running
            lock.unlock()
            commitPending()
            if let count = withDatabase({ try queue.summary().count }), count >= configuration.flushThreshold {
                lock.withLock { uploadRequested = true; lock.broadcast() }
            }
            if stop { break }
        }
        lock.withLock { threadsRunning -= 1; lock.broadcast() }
    }

    // MARK: Uploader

    private func uploadLoop() {
        while true {
            lock.lock()
            var refreshOnly = false
            while running {
                let now = clock()
                if queueHasEvents && now.timeIntervalSince(lastFlushCheck) >= settings.flushInterval {
                    lastFlushCheck = now
                    uploadRequested = true
                }
                let due = nextAttempt.map { $0 <= now } ?? true
                let allowed = enabled && !sendingStopped && !backgroundExpired
                if allowed && !settings.disabled && uploadRequested && due { break }
                // Switched off by the server: only its settings are fetched again, when due.
                if allowed && settings.disabled && settingsDue(now) { refreshOnly = true; break }
                endBackgroundWorkIfDone()
                // Sleep until something can change the answer: a retry coming due, or the flush
                // timer while events are queued; with neither, until a signal (a commit, flush,
                // consent, credentials, lifecycle or shutdown). No timer while idle.
                var wake: Date?
                if allowed && !settings.disabled && uploadRequested, let next = nextAttempt { wake = next }
                if allowed && !settings.disabled && queueHasEvents {
                    wake = min(wake ?? .distantFuture, lastFlushCheck.addingTimeInterval(settings.flushInterval))
                }
                if allowed && settings.disabled, let fetched = settingsFetchedAt {
                    wake = min(wake ?? .distantFuture, fetched.addingTimeInterval(configuration.settingsRefreshInterval))
                }
                if let wake {
                    _ = lock.wait(until: Date().addingTimeInterval(max(0.01, wake.timeIntervalSince(now))))
                } else {
                    lock.wait()
                }
                wakeUpCount += 1
            }
            if !running {
                lock.unlock()
                break
            }
            if refreshOnly {
                lock.unlock()
                refreshSettings()
                continue
            }
            uploadRequested = false
            lock.unlock()
            let now = clock()
            if lock.withLock({ settingsDue(now) }) { refreshSettings() }
            let (limit, disabled) = lock.withLock { (min(settings.maxBatchEvents, splitLimit ?? settings.maxBatchEvents), settings.disabled) }
            if !disabled { uploadOnce(limit: limit) }
            lock.withLock { endBackgroundWorkIfDone() }
        }
        lock.withLock { threadsRunning -= 1; lock.broadcast() }
    }

    /// Whether the server's settings are to be fetched (never yet, or longer ago than the refresh
    /// interval). Caller holds `lock`.
    private func settingsDue(_ now: Date) -> Bool {
        settingsFetchedAt.map { now.timeIntervalSince($0) >= configuration.settingsRefreshInterval } ?? true
    }

    /// Fetches `GET /v1/client-config` once (signed, with the ETag of the settings in force) and
    /// applies it bounded (``RemoteSettings``). Unreachable, refused or unreadable: the settings in
    /// force stay until the next refresh.
    private func refreshSettings() {
        let (url, target) = route("v1/client-config", method: "GET")
        let outcome = exchange {
            var request = URLRequest(url: url)
            request.httpMethod = "GET"
            let signedAt = Self.signingTime(clock().timeIntervalSince1970 + clockOffset)
            request.setValue(RequestSignature.authorization(keyID: credentials.keyID, secret: credentials.secret, timestamp: signedAt,
                                                            target: target, body: [UInt8]()), forHTTPHeaderField: "Authorization")
            if let settingsETag { request.setValue(settingsETag, forHTTPHeaderField: "If-None-Match") }
            return request
        }
        let now = clock()
        guard case .success(let answer)? = outcome, answer.status == 200,
              let applied = RemoteSettings(json: answer.body, local: configuration, catalogVersion: CatalogSnapshot.catalog.version) else {
            lock.withLock { settingsFetchedAt = now }
            return
        }
        lock.withLock {
            settings = applied
            settingsETag = answer.headers["etag"]
            settingsFetchedAt = now
            if applied.disabled { lastError = "disabled_by_server" }
            lock.broadcast()
        }
        withDatabase {
            try queue.setState("client_config", String(decoding: answer.body, as: UTF8.self))
            try queue.setState("client_config_etag", answer.headers["etag"])
        }
    }

    /// Sends the oldest queued events once and settles the outcome.
    private func uploadOnce(limit: Int) {
        let now = clock()
        withDatabase { _ = try queue.expire(olderThanMs: Int64((now.timeIntervalSince1970 - configuration.maxEventAge) * 1000)) }
        // Read and, when empty, mark the queue empty under the database lock, so a commit cannot
        // slip in between (it sets the mark under the same lock).
        let rows = withDatabase { () throws -> [EventQueue.Row] in
            let rows = try queue.batch(maxEvents: limit, maxBytes: configuration.maxBatchBytes)
            if rows.isEmpty { lock.withLock { queueHasEvents = false } }
            return rows
        }
        guard let rows, !rows.isEmpty else { return }
        // The catalog the batch's events were validated against, so the server validates them
        // against the same release (docs/catalog-releases.md).
        let version = rows[0].catalogVersion.map { ",\"catalog_version\":\(JSONString.quoted($0))" } ?? ""
        var body = Array("{\"sent_at\":\"\(TimestampFormat.format(seconds: Int64(now.timeIntervalSince1970)))\"\(version),\"events\":[".utf8)
        for (index, row) in rows.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += Self.withUser(row.body, row.userID)
        }
        body += Array("]}".utf8)
        let compressed = Gzip.compress(body)

        let (url, target) = route("v1/batch", method: "POST")
        // Lets the server refuse an install already over its budget before it decompresses
        // anything (README, the 429 row of "API").
        let install = lock.withLock { installID }
        let outcome = exchange {
            let signedAt = Self.signingTime(clock().timeIntervalSince1970 + clockOffset)
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.httpBody = Data(compressed)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
            request.setValue(install, forHTTPHeaderField: "Handz-Install")
            request.setValue(RequestSignature.authorization(keyID: credentials.keyID, secret: credentials.secret, timestamp: signedAt,
                                                            target: target, body: compressed), forHTTPHeaderField: "Authorization")
            return request
        }
        guard let result = outcome else { return }
        settle(result, rows: rows)
    }

    /// The URL of `relative` under the endpoint, and what an HZ2 signature covers of it: the path
    /// and query as sent, percent-encoding intact.
    private func route(_ relative: String, method: String) -> (URL, RequestSignature.Target) {
        let url = configuration.endpoint.appendingPathComponent(relative)
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        return (url, RequestSignature.Target(method: method, path: components?.percentEncodedPath ?? "/" + relative,
                                             query: components?.percentEncodedQuery ?? ""))
    }

    /// Sends the request `build` makes and waits for the answer. `build` runs under `lock` (it may
    /// read the credentials and clock offset); the request starts only while sending is allowed,
    /// atomically with `setEnabled(false)`, and is the one a cancel reaches (opt-out, expired
    /// background time, shutdown). Nil when it did not start.
    private func exchange(_ build: () -> URLRequest) -> Result<HTTPAnswer, any Error>? {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<HTTPAnswer, any Error>?>(nil)
        lock.lock()
        guard enabled, running, !sendingStopped, !backgroundExpired else {
            lock.unlock()
            return nil
        }
        uploadTask = transport.start(build()) { result in
            outcome.set(result)
            done.signal()
        }
        lock.unlock()
        done.wait()
        lock.withLock { uploadTask = nil }
        return outcome.get()
    }

    private func settle(_ result: Result<HTTPAnswer, any Error>, rows: [EventQueue.Row]) {
        let now = clock()
        switch result {
        case .failure:
            lock.withLock {
                lastStatus = nil
                lastError = enabled ? "network error" : "upload cancelled (analytics off)"
                scheduleRetry(retryAfter: nil, now: now)
            }
        case .success(let answer):
            lock.withLock { lastStatus = answer.status }
            switch answer.status {
            case 200:
                guard let rejected = Self.settledRejections(answer.body, rows: rows) else {
                    // Not our receipt (a captive portal, a proxy): nothing is known to be stored.
                    lock.withLock {
                        lastError = "unexpected response (no receipt)"
                        scheduleRetry(retryAfter: nil, now: now)
                    }
                    return
                }
                let rejectedSeqs = Set(rejected.map(\.0))
                withDatabase { try queue.settle(delivered: rows.map(\.seq).filter { !rejectedSeqs.contains($0) }, rejected: rejected) }
                lock.withLock {
                    attempt = 0
                    skewCorrections = 0
                    nextAttempt = nil
                    lastError = nil
                    if let split = splitLimit { splitLimit = split * 2 >= settings.maxBatchEvents ? nil : split * 2 }
                    uploadRequested = true  // keep going while events are queued; the server paces us
                }
            case 400, 413:
                // Isolate the offender: halve the batch; a single event refused alone is dropped.
                if rows.count == 1 {
                    let code = Self.errorCode(answer.body) ?? (answer.status == 413 ? "payload_too_large" : "malformed_envelope")
                    withDatabase { try queue.settle(delivered: [], rejected: [(rows[0].seq, code)]) }
                    lock.withLock { splitLimit = nil; uploadRequested = true; lastError = code }
                } else {
                    lock.withLock { splitLimit = max(1, rows.count / 2); uploadRequested = true; lastError = Self.errorCode(answer.body) }
                }
            case 401 where Self.errorCode(answer.body) == "clock_skew":
                // Our clock is off: take the server's time, sign again with the offset, go on.
                let serverTime = Self.serverTime(answer)
                lock.withLock {
                    lastError = "clock_skew"
                    skewCorrections += 1
                    if let serverTime { clockOffset = serverTime - now.timeIntervalSince1970 }
                    if serverTime != nil && skewCorrections <= 3 {
                        uploadRequested = true
                    } else {
                        scheduleRetry(retryAfter: nil, now: now)
                    }
                }
            case 401, 403:
                lock.withLock {
                    sendingStopped = true
                    lastError = Self.errorCode(answer.body) ?? (answer.status == 401 ? "unauthorized" : "forbidden")
                }
            case 408, 429, 500...599:
                // 408: the body took longer than the server waits (a slow network): send again later.
                lock.withLock {
                    lastError = Self.errorCode(answer.body) ?? "http \(answer.status)"
                    scheduleRetry(retryAfter: Backoff.retryAfter(answer.headers["retry-after"], now: now), now: now)
                }
            default:
                // Another client error means a configuration problem: stop and report.
                lock.withLock { sendingStopped = true; lastError = Self.errorCode(answer.body) ?? "http \(answer.status)" }
            }
        }
    }

    /// Caller holds `lock`.
    private func scheduleRetry(retryAfter: TimeInterval?, now: Date) {
        // A request cancelled by an opt-out or shutdown is not retried.
        guard enabled, running else { return }
        attempt += 1
        let delay = backoff.delay(attempt: attempt, retryAfter: retryAfter, random: Double.random(in: 0...1, using: &random))
        nextAttempt = now.addingTimeInterval(delay)
        uploadRequested = true
    }

    /// (seq, first error code) of each event a 200's receipt rejected — or nil when the body is not
    /// a receipt for exactly these rows: `accepted`, `duplicates` and `rejected` must be present,
    /// every rejected index distinct and in range, and `accepted + duplicates + rejected` equal to
    /// the number of events sent.
    static func settledRejections(_ body: Data, rows: [EventQueue.Row]) -> [(Int64, String)]? {
        guard let receipt = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let accepted = receipt["accepted"] as? Int, let duplicates = receipt["duplicates"] as? Int,
              let rejected = receipt["rejected"] as? [[String: Any]],
              (0...rows.count).contains(accepted), (0...rows.count).contains(duplicates),
              accepted + duplicates + rejected.count == rows.count else { return nil }
        var result: [(Int64, String)] = []
        var seen = Set<Int>()
        for entry in rejected {
            guard let index = entry["index"] as? Int, index >= 0, index < rows.count, seen.insert(index).inserted else { return nil }
            let code = ((entry["errors"] as? [[String: Any]])?.first?["code"] as? String) ?? "rejected"
            result.append((rows[index].seq, code))
        }
        return result
    }

    /// The server's time from a `clock_skew` answer: the body's `server_time` (unix seconds), else
    /// the `Date` header — either only when it is a plausible time (2000–2100): an answer from
    /// something else than the endpoint must not be able to push the signing clock anywhere.
    static func serverTime(_ answer: HTTPAnswer) -> TimeInterval? {
        let plausible = 946_684_800.0...4_102_444_800.0
        let error = (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["error"] as? [String: Any]
        if let seconds = (error?["server_time"] as? NSNumber)?.doubleValue, plausible.contains(seconds) { return seconds }
        return answer.headers["date"].flatMap(Backoff.httpDate)?.timeIntervalSince1970.within(plausible)
    }

    /// Whole unix seconds to sign with; never traps, whatever the clock and offset say.
    static func signingTime(_ seconds: TimeInterval) -> Int64 {
        guard seconds.isFinite else { return 0 }
        return Int64(min(max(seconds, 0), 4_102_444_800).rounded(.down))
    }

    static func errorCode(_ body: Data) -> String? {
        ((try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
    }
}

/// A small lock-protected box for values crossing threads.
extension Comparable {
    /// Nil when outside `range`, the value otherwise.
    func within(_ range: ClosedRange<Self>) -> Self? { range.contains(self) ? self : nil }
}

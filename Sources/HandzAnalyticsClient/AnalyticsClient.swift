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
///
/// ## Threading model
///
/// The client is a monitor: one lock, two threads of its own, and nothing else that runs
/// concurrently.
///
/// - **All mutable state is behind `lock`** (one `NSCondition`), which is never held during disk or
///   network I/O. Every public method takes it briefly and returns; none waits for the disk or the
///   network, so the app may call them from the main thread (`drain` is the one exception, for
///   tools and tests).
/// - **Two threads**, started by `init` and stopped by ``shutdown()``:
///   the *committer* (`AnalyticsClient+Committer.swift`) writes pending events to the SQLite queue,
///   one transaction per burst; the *uploader* (`AnalyticsClient+Uploader.swift`) sends one batch
///   at a time and settles its answer (`AnalyticsClient+Settlement.swift`). Both sleep on the
///   condition without a timer while there is nothing to do, and are woken by `broadcast`.
/// - **The queue's SQLite connection is behind `databaseLock`**, taken only through `withDatabase`
///   and `commitPending`. Order: `databaseLock` may be held while taking `lock` briefly, never the
///   reverse, so the two cannot deadlock.
/// - **Time is one seam** (`ClientClock.swift`): every reading of the time — event times,
///   sessions, the flush timer, retries and `Retry-After`, the settings refresh, expiry — and every
///   timed wait of the two threads go through the client's clock. The app's is the system's (over
///   the `clock` it may pass: the time is read from it, waits last as long on the system's clock);
///   the package's tests pass a clock they move themselves, so a retry's timing is asserted
///   exactly, without sleeping. The HTTP request timeout is URLSession's own.
/// - **Cancellation:** the one request in flight is `uploadTask`; it starts under `lock` only while
///   sending is allowed (`exchange`), so `setEnabled(false)`, expired background time and
///   `shutdown()` reach it atomically (CH33-P8: no request starts after the opt-out returns).
///
/// Why not an actor: `track` must stay synchronous and cheap on the caller's thread, keep the
/// order events were tracked in, and never allocate a task per event; the app's code would
/// otherwise have to `await` analytics. The monitor gives the same guarantee — one owner of the
/// state at a time — with a call a UIKit action handler can make inline.
///
/// The code is split by concern: `+Tracking` (events in), `+Lifecycle` (foreground, background,
/// connectivity), `+Identity` (sign-in, sign-out, credentials), `+Consent` (the toggles),
/// `+Diagnostics` (flush, drain, diagnostics), `+Committer`, `+Uploader` and `+Settlement`.
public final class AnalyticsClient: PlatformSignalSink, @unchecked Sendable {
    public let configuration: ClientConfiguration
    let context: any DeviceContextProvider
    /// Lifecycle, connectivity and background time (``PlatformSignals``); nil: the app calls
    /// ``appDidEnterBackground()`` and the others itself, and no background time is asked for.
    let platform: (any PlatformSignals)?
    /// The time and the threads' timed waits (`ClientClock`): the system's by default.
    let time: any ClientClock
    let catalog: CompiledCatalog
    /// The version of the catalog events are validated against and sent with
    /// (`ClientConfiguration.catalog`, else the package's).
    let catalogVersionInUse: String
    let queue: EventQueue
    let transport: URLSessionTransport
    let backoff: Backoff

    // The state below is internal rather than private only so the feature files (the
    // `AnalyticsClient+…` extensions) can share it; the app sees none of it. Every `var` is read
    // and written under `lock`.

    /// Protects everything below; never held during disk or network I/O.
    let lock = NSCondition()
    /// Serialises use of the queue's SQLite connection (committer, uploader, API calls).
    let databaseLock = NSLock()

    var enabled: Bool
    /// "Share crash reports" (CH33 §2.2), separate from analytics: off, `crash_reported` is neither
    /// queued nor sent. Analytics off still means nothing at all is sent.
    var crashReportsEnabled: Bool
    var validator: EventValidator
    var pending: [EventQueue.Pending] = []
    var pendingInvalid = 0
    var installID: String
    var sessionID: String
    var userID: String?
    var backgroundSince: Date?
    /// Background time held for the flush started when the app left the screen; ended once the
    /// queue is empty, the upload failed or cannot run now, or the time expired.
    var backgroundWork: BackgroundWork?
    /// The background time ran out: no new request starts until the app is back on screen (the
    /// system may suspend it at any moment).
    var backgroundExpired = false
    /// Connectivity from the platform, when it reports it: the events' `network_state`.
    var platformNetwork: NetworkState?
    var recent: [ClientDiagnostics.RecentEvent] = []
    var random = SystemRandomNumberGenerator()
    /// Event ids in emission order, also within one millisecond (RFC 9562 §6.2).
    var eventIDs = MonotonicUUIDv7()

    // Delivery state.
    var uploadRequested = false
    var uploadTask: URLSessionDataTask?
    var attempt = 0
    var nextAttempt: Date?
    var splitLimit: Int?
    var sendingStopped = false
    var lastStatus: Int?
    var lastError: String?
    /// Server clock − device clock, measured from a `clock_skew` answer; added to the time a
    /// request is signed with (never to event times, which stay the device's, CH33 §3.2).
    var clockOffset: TimeInterval = 0
    /// `clock_skew` answers in a row; past a few, retries back off instead of going at once.
    var skewCorrections = 0
    var lastFlushCheck: Date
    /// The server's settings as applied (bounded; the local configuration's until fetched), the
    /// ETag they came with, and when they were last fetched.
    var settings: RemoteSettings
    var settingsETag: String?
    var settingsFetchedAt: Date?
    /// Whether the queue may hold events: set by a commit, cleared when a batch comes back empty.
    /// Without events the uploader has no timer to keep (an idle client does not wake).
    var queueHasEvents = false
    /// Times the committer and uploader woke from a wait (``wakeUps``).
    var wakeUpCount = 0
    var running = true
    var threadsRunning = 2

    /// Opens (or creates) the queue and starts the committer and uploader threads.
    /// - Parameters:
    ///   - configuration: the endpoint, key, queue file and limits.
    ///   - context: where the events' global properties are read from.
    ///   - clock: the time events, sessions and retries are measured by (the device's clock by
    ///     default); the threads' waits last as long by the system's clock.
    ///   - platform: lifecycle, connectivity and background time (UIKit's on iOS by default).
    /// - Throws: when the queue file cannot be opened or created.
    public convenience init(configuration: ClientConfiguration, context: any DeviceContextProvider,
                            clock: @escaping @Sendable () -> Date = { Date() },
                            platform: (any PlatformSignals)? = AnalyticsClient.defaultPlatform()) throws {
        try self.init(configuration: configuration, context: context, time: SystemClientClock(clock), platform: platform)
    }

    /// The same with every reading of the time and every timed wait on `time` (the package's
    /// tests pass a clock they move themselves; see `ClientClock`).
    package init(configuration: ClientConfiguration, context: any DeviceContextProvider, time: any ClientClock,
                 platform: (any PlatformSignals)?) throws {
        self.configuration = configuration
        self.context = context
        self.time = time
        self.platform = platform
        let rules = configuration.catalog ?? CatalogSnapshot.catalog
        catalogVersionInUse = rules.version
        catalog = CompiledCatalog(rules)
        validator = EventValidator(catalog: catalog)
        queue = try EventQueue(path: configuration.queuePath, catalogVersion: rules.version)
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
        sessionID = UUIDv7.make(milliseconds: UInt64(time.now.timeIntervalSince1970 * 1000))
        lastFlushCheck = time.now
        queueHasEvents = try queue.summary().count > 0
        // The last settings fetched, until the next fetch (safe when the server is unreachable).
        settings = try queue.state("client_config").flatMap {
            RemoteSettings(json: Data($0.utf8), local: configuration, catalogVersion: rules.version)
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

    /// The catalog version this package's client was generated from (what a server's kill switch
    /// names); an app that generates its own events sends ``ClientConfiguration/catalog``'s.
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

    /// The current time on the client's clock.
    func clock() -> Date { time.now }

    /// The ingest key requests are signed with; replaced by ``updateCredentials(keyID:secret:)``.
    lazy var credentials: (keyID: String, secret: [UInt8]) = (configuration.keyID, configuration.secret)
}

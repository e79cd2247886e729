import Foundation

/// What the client needs from the platform it runs on: the app's lifecycle, connectivity, and time
/// to finish an upload after the app leaves the screen (issue 17). The client calls ``start(_:)``
/// once and then hears about changes through its ``PlatformSignalSink`` methods; it asks for
/// background time around the flush it starts when the app goes to the background.
///
/// - On iOS, `UIKitPlatformSignals` (UIApplication notifications, `beginBackgroundTask`,
///   `NWPathMonitor`) is used by default.
/// - Elsewhere (Linux, tests, tools) ``ManualPlatformSignals`` is driven by hand: the same client
///   code runs, and tests can enter the background, cut the network or expire the background time.
public protocol PlatformSignals: AnyObject, Sendable {
    /// Starts delivering lifecycle and connectivity changes to `sink` (held weakly).
    func start(_ sink: any PlatformSignalSink)
    /// Asks the system for time to finish work in the background. `expired` is called if that time
    /// runs out before ``endBackgroundWork(_:)``. Nil when the platform gives none.
    func beginBackgroundWork(expired: @escaping @Sendable () -> Void) -> BackgroundWork?
    /// Ends background work begun with ``beginBackgroundWork(expired:)``; called exactly once
    /// per piece of work, on every path (delivered, failed, abandoned, expired).
    func endBackgroundWork(_ work: BackgroundWork)
    /// The connectivity right now, when the platform knows it.
    var networkState: NetworkState? { get }
}

/// The receiving side: ``AnalyticsClient`` conforms.
public protocol PlatformSignalSink: AnyObject, Sendable {
    func appDidEnterBackground()
    func appWillEnterForeground()
    /// Connectivity changed. Back online: queued events are sent at once, without waiting out a
    /// backoff that offline failures built up (CH33 §9 "queued locally until network resumes").
    func networkDidChange(_ state: NetworkState)
}

/// One piece of background time, identified for ``PlatformSignals/endBackgroundWork(_:)``.
public struct BackgroundWork: Sendable, Hashable {
    public let id: Int
    public init(id: Int) { self.id = id }
}

/// Signals driven by hand: for platforms without UIKit, tools and tests. Records the background
/// work begun and ended, so tests can check that every piece is ended exactly once.
public final class ManualPlatformSignals: PlatformSignals, @unchecked Sendable {
    private let lock = NSLock()
    private weak var sink: (any PlatformSignalSink)?
    private var state: NetworkState?
    private var nextID = 0
    private var open: [Int: @Sendable () -> Void] = [:]
    private var ended: [Int] = []

    public init(networkState: NetworkState? = nil) { state = networkState }

    public func start(_ sink: any PlatformSignalSink) { lock.withLock { self.sink = sink } }

    public var networkState: NetworkState? { lock.withLock { state } }

    public func beginBackgroundWork(expired: @escaping @Sendable () -> Void) -> BackgroundWork? {
        lock.withLock {
            nextID += 1
            open[nextID] = expired
            return BackgroundWork(id: nextID)
        }
    }

    public func endBackgroundWork(_ work: BackgroundWork) {
        lock.withLock {
            open[work.id] = nil
            ended.append(work.id)
        }
    }

    /// Background work begun and not ended yet.
    public var openWork: [BackgroundWork] { lock.withLock { open.keys.sorted().map(BackgroundWork.init(id:)) } }
    /// Every end, in order (an id twice would be a double end).
    public var endedWork: [Int] { lock.withLock { ended } }
    /// How many pieces of background work were begun.
    public var begunWork: Int { lock.withLock { nextID } }

    public func enterBackground() { lock.withLock { sink }?.appDidEnterBackground() }
    public func enterForeground() { lock.withLock { sink }?.appWillEnterForeground() }

    public func setNetwork(_ new: NetworkState) {
        let sink = lock.withLock { () -> (any PlatformSignalSink)? in
            state = new
            return self.sink
        }
        sink?.networkDidChange(new)
    }

    /// The system ran out of background time: calls every open piece's `expired`.
    public func expireBackgroundWork() {
        let handlers = lock.withLock { Array(open.values) }
        for handler in handlers { handler() }
    }
}

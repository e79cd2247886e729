#if canImport(UIKit) && canImport(Network)
import Foundation
import Network
import UIKit

/// The iOS platform: UIApplication's background/foreground notifications, `beginBackgroundTask`
/// for the background flush, and `NWPathMonitor` for connectivity (which also gives events their
/// `network_state`, CH33 §3.2). Compiled only where UIKit exists (this repository's CI builds on
/// Linux, where ``ManualPlatformSignals`` drives the same client code in tests).
public final class UIKitPlatformSignals: PlatformSignals, @unchecked Sendable {
    private let monitor = NWPathMonitor()
    private let queue = DispatchQueue(label: "handz-analytics.network")
    private let lock = NSLock()
    private var state: NetworkState?
    private var observers: [NSObjectProtocol] = []

    public init() {}

    deinit {
        monitor.cancel()
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }

    public func start(_ sink: any PlatformSignalSink) {
        let center = NotificationCenter.default
        observers.append(center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) { [weak sink] _ in
            sink?.appDidEnterBackground()
        })
        observers.append(center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) { [weak sink] _ in
            sink?.appWillEnterForeground()
        })
        monitor.pathUpdateHandler = { [weak self, weak sink] path in
            let new: NetworkState = path.status == .satisfied ? (path.isConstrained ? .flaky : .online) : .offline
            self?.lock.withLock { self?.state = new }
            sink?.networkDidChange(new)
        }
        monitor.start(queue: queue)
    }

    public var networkState: NetworkState? { lock.withLock { state } }

    public func beginBackgroundWork(expired: @escaping @Sendable () -> Void) -> BackgroundWork? {
        // The client ends the task from `expired` itself (it cancels the upload, keeps the events
        // queued, and calls endBackgroundWork), so the handler does nothing else.
        let identifier = UIApplication.shared.beginBackgroundTask(withName: "handz-analytics-flush") { expired() }
        guard identifier != .invalid else { return nil }
        return BackgroundWork(id: identifier.rawValue)
    }

    public func endBackgroundWork(_ work: BackgroundWork) {
        UIApplication.shared.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: work.id))
    }
}
#endif

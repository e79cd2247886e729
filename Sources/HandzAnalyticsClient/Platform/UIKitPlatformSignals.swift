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
            // Connected, offline, or waiting for a connection to come up (reported as flaky).
            let new: NetworkState = switch path.status {
            case .satisfied: .online
            case .requiresConnection: .flaky
            default: .offline
            }
            self?.lock.withLock { self?.state = new }
            sink?.networkDidChange(new)
        }
        monitor.start(queue: queue)
    }

    public var networkState: NetworkState? { lock.withLock { state } }

    /// UIApplication is main-actor isolated. The lifecycle notifications, and so the client's
    /// background flush that calls this, arrive on the main thread; called from elsewhere, no
    /// background time is asked for.
    public func beginBackgroundWork(expired: @escaping @Sendable () -> Void) -> BackgroundWork? {
        guard Thread.isMainThread else { return nil }
        return MainActor.assumeIsolated {
            // The client ends the task from `expired` itself (it cancels the upload, keeps the
            // events queued, and calls endBackgroundWork), so the handler does nothing else.
            let identifier = UIApplication.shared.beginBackgroundTask(withName: "handz-analytics-flush") { expired() }
            return identifier == .invalid ? nil : BackgroundWork(id: identifier.rawValue)
        }
    }

    /// Ends the task on the main actor: at once from the main thread (the expiry handler must end
    /// it before returning), otherwise asynchronously — never by waiting for the main thread,
    /// which may itself be waiting for the client.
    public func endBackgroundWork(_ work: BackgroundWork) {
        let identifier = UIBackgroundTaskIdentifier(rawValue: work.id)
        if Thread.isMainThread {
            MainActor.assumeIsolated { UIApplication.shared.endBackgroundTask(identifier) }
        } else {
            Task { @MainActor in UIApplication.shared.endBackgroundTask(identifier) }
        }
    }
}
#endif

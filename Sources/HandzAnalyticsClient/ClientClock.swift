import Foundation

/// Where the client reads the time and how its two threads wait for a time to come: the one seam
/// for time in the client.
///
/// Every reading of the time (event times, sessions, the flush timer, retries and `Retry-After`,
/// the settings refresh, expiry) is `now`, and every wait of the committer and the uploader is
/// `wait(_:on:until:)` — so a clock that moves only when told moves all of them together.
/// `SystemClientClock` is the one the app gets; the package's tests pass one they advance
/// themselves (through the package-level `AnalyticsClient` initialiser), and assert, for
/// instance, that a retry starts exactly when `Retry-After` says and not a millisecond before.
/// The app's API does not change: it passes (if anything) a `() -> Date`.
package protocol ClientClock: Sendable {
    /// The current time on this clock.
    var now: Date { get }

    /// `thread` waits on `condition`, which it holds (released during the wait, held again on
    /// return), until the condition is signalled or — when `deadline` is given — until this clock
    /// reaches `deadline`. May return early; callers check again what they wait for.
    func wait(_ thread: ClientThread, on condition: NSCondition, until deadline: Date?)
}

/// The client's two threads, as they name themselves to the clock when they wait.
package enum ClientThread: Sendable {
    case committer
    case uploader
}

/// The clock of an app: the time from `now` (the device's clock, `Date()`, unless the app passes
/// another `clock` to `AnalyticsClient.init`), waits measured by the system's clock for the same
/// length.
package struct SystemClientClock: ClientClock {
    let read: @Sendable () -> Date

    package init(_ now: @escaping @Sendable () -> Date = { Date() }) {
        read = now
    }

    package var now: Date { read() }

    package func wait(_ thread: ClientThread, on condition: NSCondition, until deadline: Date?) {
        guard let deadline else {
            condition.wait()
            return
        }
        // The length of the wait as this clock counts it, on the system's clock (a clock passed
        // in may be offset from it).
        _ = condition.wait(until: Date().addingTimeInterval(max(0, deadline.timeIntervalSince(now))))
    }
}

import Foundation
import HandzAnalyticsClient

/// A client clock that moves only when the test moves it, and tells the test when the client's
/// uploader has looked at everything and gone to sleep: ``settle(at:timeout:)``. With it a test
/// asserts what the client does at an exact time — nothing at `Retry-After` minus a millisecond,
/// one request at `Retry-After` — instead of sleeping and counting what happened meanwhile.
///
/// The client's waits return when the time reaches their deadline or when the client signals its
/// condition, as they do on the system's clock; moving the clock signals the client.
final class ManualClientClock: ClientClock, @unchecked Sendable {
    /// One wait of the uploader: its sequence number (1, 2, …) and deadline (nil: no timer, only a
    /// signal wakes it).
    struct Park: Equatable {
        var number: Int
        var deadline: Date?
    }

    private let state = NSCondition()
    private var current: Date
    /// The condition the client's threads wait on (its one lock), once one of them has waited.
    private var clientCondition: NSCondition?
    private var parks = 0
    private var parked: Park?

    /// Starts at `start`: by default now to the whole second, so the requests are signed with the
    /// server's time and sums of whole seconds stay exact.
    init(start: Date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))) {
        current = start
    }

    var now: Date { state.withLock { current } }

    func wait(_ thread: ClientThread, on condition: NSCondition, until deadline: Date?) {
        let isUploader = thread == .uploader
        let due = state.withLock { () -> Bool in
            clientCondition = condition
            state.broadcast()
            if let deadline, deadline <= current { return true }
            if isUploader {
                parks += 1
                parked = Park(number: parks, deadline: deadline)
            }
            return false
        }
        if due { return }
        // The caller holds `condition` from its look at the time until this call releases it, and
        // `settle` takes it to signal: a move of the clock in between is not missed.
        condition.wait()
        if isUploader { state.withLock { parked = nil } }
    }

    /// Moves the clock to `date` (never back; nil: it stays), wakes the client's threads, and
    /// returns the uploader's next wait — proof that it has looked at the time and at everything
    /// the test did before this call, and done what was due (a request, say) before sleeping.
    /// Nil when the uploader does not go back to sleep within `timeout` seconds (of the system's
    /// clock: a bound, never a pace).
    func settle(at date: Date? = nil, timeout: TimeInterval = 30) -> Park? {
        let limit = Date().addingTimeInterval(timeout)
        // The client's lock is known once one of its threads has waited (both do at start).
        let condition: NSCondition? = state.withLock {
            while clientCondition == nil, state.wait(until: limit) {}
            if let date { current = max(current, date) }
            return clientCondition
        }
        guard let condition else { return nil }
        // Under the client's lock the uploader is either asleep or not looking at its state: the
        // first wait it begins after this one follows a fresh look.
        condition.lock()
        let mark = state.withLock { parks }
        condition.broadcast()
        condition.unlock()
        state.lock()
        defer { state.unlock() }
        while true {
            if let park = parked, park.number > mark { return park }
            guard state.wait(until: limit) else { return parked.flatMap { $0.number > mark ? $0 : nil } }
        }
    }
}

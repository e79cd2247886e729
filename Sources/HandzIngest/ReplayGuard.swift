import HandzAnalyticsCore
import HandzSigning

/// Remembers the admin signatures accepted within the freshness window, so a captured admin request
/// cannot be sent again (CH33 §10 "signed ingestion keys"; HandzServer docs, "Signed requests").
///
/// An HZ2 signature covers the method, path, query, timestamp and body, so it is unique to one
/// request; a second request with the same signature is a replay. An entry is kept until its
/// timestamp leaves the window (`ts + RequestSignature.maxClockSkewSeconds`): after that the
/// freshness check refuses the request anyway. The memory is per node: with several nodes a
/// captured admin request could still be replayed once on each other node within the window — it
/// can only repeat the same action (a deletion or reload again, or the same maintenance window on a
/// node that had not received it); the HandzServer docs ("Threat model") say to keep admin requests behind TLS.
final class ReplayGuard: Sendable {
    /// More live entries than this refuses new admin requests until some expire (fail closed).
    static let capacity = 100_000

    private struct State {
        var expiry: [[UInt8]: Int64] = [:]
        var nextPrune: Int64 = .min
    }
    private let state = Locked(State())

    /// Records `signature` and returns true, or returns false when it was seen and has not expired
    /// (or the guard is full). `now` and `timestamp` are unix seconds; `timestamp` is already fresh.
    func claim(_ signature: [UInt8], timestamp: Int64, now: Int64) -> Bool {
        state.withLock { state in
            if now >= state.nextPrune || state.expiry.count >= Self.capacity {
                state.expiry = state.expiry.filter { $0.value >= now }
                state.nextPrune = now &+ 10
            }
            if let expires = state.expiry[signature], expires >= now { return false }
            guard state.expiry.count < Self.capacity else { return false }
            state.expiry[signature] = timestamp &+ RequestSignature.maxClockSkewSeconds
            return true
        }
    }
}

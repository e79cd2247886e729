import Foundation
import HandzAnalyticsCore

/// Token buckets in a fixed number of slots: an identifier hashes to a slot, so memory never
/// grows with the number of installs (two installs that share a slot share a budget — they can
/// only be limited sooner, never allowed more).
public final class TokenBuckets: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    public let rate: Double
    public let burst: Double
    private let slots: Int
    private let buckets: Locked<[Bucket]>

    public init(rate: Double, burst: Double, slots: Int) {
        self.rate = rate
        self.burst = burst
        self.slots = max(1, slots)
        buckets = Locked([Bucket](repeating: Bucket(tokens: burst, updated: 0), count: self.slots))
    }

    func slot(_ identifier: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in identifier.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(slots))
    }

    /// Takes `costs` tokens from each identifier's bucket, all or nothing. Returns nil when taken,
    /// or the seconds until the scarcest bucket would allow it.
    public func take(_ costs: [String: Double], now: Double) -> Double? {
        var merged: [Int: Double] = [:]
        for (identifier, cost) in costs { merged[slot(identifier), default: 0] += cost }
        return buckets.withLock { buckets in
            var wait = 0.0
            for (slot, cost) in merged {
                refill(&buckets[slot], now: now)
                if buckets[slot].tokens < cost {
                    wait = max(wait, cost > burst ? .infinity : (cost - buckets[slot].tokens) / rate)
                }
            }
            if wait > 0 { return wait }
            for (slot, cost) in merged { buckets[slot].tokens -= cost }
            return nil
        }
    }

    /// The seconds until `identifier`'s bucket holds `cost` tokens (nil: it does now), without
    /// taking any — the cheap refusal before a request's work; ``take(_:now:)`` debits after.
    public func wait(_ identifier: String, cost: Double, now: Double) -> Double? {
        let slot = slot(identifier)
        return buckets.withLock { buckets in
            refill(&buckets[slot], now: now)
            guard buckets[slot].tokens < cost else { return nil }
            return cost > burst ? .infinity : (cost - buckets[slot].tokens) / rate
        }
    }

    private func refill(_ bucket: inout Bucket, now: Double) {
        if bucket.updated == 0 { bucket.updated = now }
        bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * rate)
        bucket.updated = now
    }
}

import Foundation
import HandzSigning

/// The users deleted in the last `window` — as salted hashes — for the ingest path: an event
/// that still carries a deleted user's id (an offline queue delivering what was recorded before the
/// deletion, CH27; the client keeps events up to 30 days) is stored without its `user_id`, so a
/// completed deletion stays complete (issue 14; CH33 §9 "future events anonymous").
///
/// Costs nothing while no one was deleted (the common case); otherwise one HMAC per distinct
/// user id in a batch. Filled from the ledger at start and refreshed by the server's lifecycle
/// service; a node learns of a request another node recorded within one refresh, and the worker
/// waits that long before its store step (`DeletionWorker/storeStepDelayMs`), so every row
/// stored after the step passed through a node that knew.
public final class DeletedSubjects: @unchecked Sendable {
    /// How far back requests are remembered: the client's queue drops events older than 30 days
    /// (HandzAnalyticsClient docs, "What the client guarantees"), plus a day of margin.
    public static let windowMs: Int64 = 31 * 86_400_000

    private let lock = NSLock()
    private var salt: [UInt8]?
    private var hashes: Set<String> = []

    public init() {}

    /// Replaces the contents with what the ledger holds now.
    public func replace(salt: [UInt8], hashes: Set<String>) {
        lock.withLock { (self.salt, self.hashes) = (salt, hashes) }
    }

    public var count: Int { lock.withLock { hashes.count } }

    /// Sets `user_id` to NULL in every row whose id belongs to a deleted user; returns how many.
    public func scrub(_ rows: inout EventRows) -> Int {
        guard let (salt, hashes) = lock.withLock({ salt.map { ($0, hashes) } }), !hashes.isEmpty else { return 0 }
        var verdicts: [[UInt8]: Bool] = [:]
        return rows.nullify(.userID) { value in
            let id = Array(value)
            if let known = verdicts[id] { return known }
            let deleted = hashes.contains(Hex.encode(HMACSHA256.code(key: salt, data: id)))
            verdicts[id] = deleted
            return deleted
        }
    }
}

import Foundation
import HandzAnalyticsCore

/// Who the events belong to: sign-in, sign-out, account deletion (CH33 §9, CH34 §8.3), and the
/// ingest key requests are signed with.
extension AnalyticsClient {
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



    /// New credentials after a 401/403 (key rotation): sending resumes.
    public func updateCredentials(keyID: String, secret: [UInt8]) {
        lock.withLock {
            credentials = (keyID, secret)
            sendingStopped = false
            lastError = nil
            lock.broadcast()
        }
    }
}

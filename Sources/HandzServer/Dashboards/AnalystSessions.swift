import Foundation
import HandzAnalyticsCore
import HandzIngest
import HandzSigning

/// The browser sessions of analysts signed in to the served dashboards (issue 16 §1).
///
/// A session is a 256-bit random token, sent back only in an `HttpOnly; SameSite=Strict` cookie
/// scoped to `/dashboards`; the server keeps it in memory (a restart signs everyone out). It
/// lasts ``idleSeconds`` without a request and ``lifetimeSeconds`` at most, and every request
/// checks that its key is still an active analyst key, so `keys revoke` ends it within a second.
final class AnalystSessions: Sendable {
    struct Session: Sendable {
        var keyID: String
        var created: Date
        var lastSeen: Date
    }

    static let cookieName = "handz_session"
    static let idleSeconds: TimeInterval = 2 * 3_600
    static let lifetimeSeconds: TimeInterval = 12 * 3_600
    /// Sessions kept at most; the least recently used goes first.
    static let capacity = 1_000
    /// Failed sign-ins answered 401 per minute, for the whole server; later failures get 429. Checked
    /// after the credentials, so a flood of bad tries never locks out the right key: the secret is
    /// 256 bits, so this only keeps a guesser from using the server's time.
    static let failuresPerMinute = 20

    private let sessions = Locked<[String: Session]>([:])
    private let failures = Locked<(windowStart: Date, count: Int)>((Date(), 0))
    let keys: KeyRing

    init(keys: KeyRing) { self.keys = keys }

    /// Checks an analyst key's id and secret (constant time over the secret's bytes); a key whose
    /// scopes are not exactly `analyst` (a hand-edited keys file can combine them; `keys create`
    /// cannot), revoked, or unknown is refused the same way.
    func signIn(keyID: String, secretHex: String, now: Date = Date()) -> String? {
        guard IngestionKey.isValidID(keyID), let key = keys.key(id: keyID, now: now), key.isActive, Set(key.scopes) == [.analyst],
              key.hasValidSecret, let given = Hex.decode(secretHex), ConstantTime.equal(given, key.secret) else { return nil }
        var random = SystemRandomNumberGenerator()
        let token = Hex.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) })
        sessions.withLock { sessions in
            if sessions.count >= Self.capacity, let oldest = sessions.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
                sessions.removeValue(forKey: oldest)
            }
            sessions[token] = Session(keyID: keyID, created: now, lastSeen: now)
        }
        return token
    }

    /// The key id of a live session, or nil (unknown, expired, or its key no longer an active
    /// analyst key: then the session is dropped).
    func keyID(token: String, now: Date = Date()) -> String? {
        guard token.utf8.count == 64 else { return nil }
        let session: Session? = sessions.withLock { sessions in
            guard var session = sessions[token] else { return nil }
            guard now.timeIntervalSince(session.lastSeen) < Self.idleSeconds, now.timeIntervalSince(session.created) < Self.lifetimeSeconds else {
                sessions.removeValue(forKey: token)
                return nil
            }
            session.lastSeen = now
            sessions[token] = session
            return session
        }
        guard let session else { return nil }
        guard let key = keys.key(id: session.keyID, now: now), key.isActive, Set(key.scopes) == [.analyst] else {
            end(token: token)
            return nil
        }
        return session.keyID
    }

    func end(token: String) {
        _ = sessions.withLock { $0.removeValue(forKey: token) }
    }

    /// Counts a failed sign-in; false once this minute's allowance is spent.
    func noteFailure(now: Date = Date()) -> Bool {
        failures.withLock { state in
            if now.timeIntervalSince(state.windowStart) >= 60 { state = (now, 0) }
            state.count += 1
            return state.count <= Self.failuresPerMinute
        }
    }

    /// The session token in a `Cookie` header, if any.
    static func token(cookieHeader: String?) -> String? {
        guard let cookieHeader else { return nil }
        for part in cookieHeader.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == cookieName { return String(pair[1]) }
        }
        return nil
    }
}

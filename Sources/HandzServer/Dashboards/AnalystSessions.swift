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
    /// Sessions kept at most; when full, expired sessions go first, then the least recently used.
    static let capacity = 1_000
    /// Live sessions of one key at most (issue 32 §4): a key's next sign-in ends that key's least
    /// recently used session, never another key's, so one key signing in in a loop cannot sign
    /// every other analyst out. Twenty covers one person's browsers and devices many times over.
    static let perKey = 20
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
            let own = sessions.filter { $0.value.keyID == keyID }
            if own.count >= Self.perKey, let oldest = own.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
                sessions.removeValue(forKey: oldest)
            }
            if sessions.count >= Self.capacity {
                sessions = sessions.filter { Self.isLive($0.value, now: now) }
            }
            if sessions.count >= Self.capacity, let oldest = sessions.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
                sessions.removeValue(forKey: oldest)
            }
            sessions[token] = Session(keyID: keyID, created: now, lastSeen: now)
        }
        return token
    }

    static func isLive(_ session: Session, now: Date) -> Bool {
        now.timeIntervalSince(session.lastSeen) < idleSeconds && now.timeIntervalSince(session.created) < lifetimeSeconds
    }

    /// Live sessions of `keyID` (for the tests).
    func count(keyID: String) -> Int {
        sessions.withLock { $0.values.filter { $0.keyID == keyID }.count }
    }

    /// The key id of a live session, or nil (unknown, expired, or its key no longer an active
    /// analyst key: then the session is dropped).
    func keyID(token: String, now: Date = Date()) -> String? {
        guard token.utf8.count == 64 else { return nil }
        let session: Session? = sessions.withLock { sessions in
            guard var session = sessions[token] else { return nil }
            guard Self.isLive(session, now: now) else {
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

    /// What a request's `Cookie` header (every `Cookie` field, joined with `; `) says about its
    /// session (issue 32 §4).
    enum SessionCookie: Equatable {
        /// No `handz_session` cookie.
        case none
        /// One token (or the same token more than once).
        case token(String)
        /// Two or more different `handz_session` values. A browser sends every cookie whose
        /// domain and path match, so a cookie planted from a sibling host (`Domain=` the parent)
        /// arrives beside this server's own, and nothing in the header says which is which.
        /// Taking the first let a planted cookie sign an analyst out or pin them to another
        /// session; such a request is refused instead (400), and signing out ends every token.
        case conflicting([String])
    }

    static func sessionCookie(_ cookieHeader: String?) -> SessionCookie {
        guard let cookieHeader else { return .none }
        var tokens: [String] = []
        for part in cookieHeader.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2, pair[0] == cookieName, !tokens.contains(String(pair[1])) { tokens.append(String(pair[1])) }
        }
        switch tokens.count {
        case 0: return .none
        case 1: return .token(tokens[0])
        default: return .conflicting(tokens)
        }
    }
}

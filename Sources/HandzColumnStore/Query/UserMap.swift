import HandzAnalyticsCore
import HandzQuery

/// `--actor user` (CH33 §3.1) on the column store: each install's user, the `user_id` of its
/// earliest event (by time, then id) that carries one, over every stored event — the SQL's
/// `um` (`ActorResolution`), from every chunk's install, user, time and id. An install without
/// one is its own actor. Keys are ``TextKeys``, so a user and an install with the same text are
/// one actor, as `COALESCE(um_user, install_id)` makes them.
public struct UserMap: Sendable {
    /// Install key → user key.
    let userOfInstall: [UInt64: UInt64]

    init(store: ColumnStore) throws(ColumnStoreError) {
        var first: [UInt64: (time: Int64, id: UUIDWords, user: UInt64)] = [:]
        for entry in store.manifest.chunks {
            let read = try store.columns(entry)
            guard read.chunk.entry(ColumnName.userID) != nil else { continue }
            let users = try read.textKeys(ColumnName.userID, store.textKeys)
            guard users.contains(where: { $0 != 0 }) else { continue }
            let installs = try read.keys(ColumnName.installID, store.textKeys)
            let times = try read.times(ColumnName.eventTime)
            let ids = try read.ids()
            for row in 0..<read.chunk.rows where users[row] != 0 {
                if let known = first[installs[row]], (known.time, known.id) < (times[row], ids[row]) { continue }
                first[installs[row]] = (times[row], ids[row], users[row])
            }
        }
        userOfInstall = first.mapValues(\.user)
    }

    /// The actor of an install: its user, or itself.
    @inline(__always) func actor(_ install: UInt64) -> UInt64 { userOfInstall[install] ?? install }
}

/// Who a query counts, as a key function over install keys.
struct ActorKeys {
    let users: UserMap?

    init(_ kind: ActorKind, store: ColumnStore) throws(ColumnStoreError) {
        users = kind == .user ? try store.userMap() : nil
    }

    @inline(__always) func key(_ install: UInt64) -> UInt64 { users?.actor(install) ?? install }

    func keys(_ installs: [UInt64]) -> [UInt64] {
        guard let users else { return installs }
        return installs.map(users.actor)
    }
}

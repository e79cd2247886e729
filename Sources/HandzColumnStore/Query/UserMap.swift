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
        let chunks = store.manifest.chunks
        // Each chunk's candidates decoded on both cores, a wave at a time; the earliest kept.
        for start in stride(from: 0, to: chunks.count, by: ScannedRows.chunksPerWave) {
            let wave = Array(chunks[start..<min(start + ScannedRows.chunksPerWave, chunks.count)])
            let parts = try ParallelWork.map(wave) { entry throws(ColumnStoreError) in try Self.candidates(entry, store: store) }
            for part in parts {
                for candidate in part {
                    if let known = first[candidate.install], (known.time, known.id) < (candidate.time, candidate.id) { continue }
                    first[candidate.install] = (candidate.time, candidate.id, candidate.user)
                }
            }
        }
        userOfInstall = first.mapValues(\.user)
    }

    /// One chunk's earliest row with a user per run of rows of one install: at least one per
    /// install the chunk holds with a user (exactly one when its rows are grouped by install, as
    /// a seal writes them), so the earliest of all chunks' candidates is the install's first.
    static func candidates(_ entry: ColumnManifest.ChunkEntry, store: ColumnStore) throws(ColumnStoreError)
        -> [(install: UInt64, time: Int64, id: UUIDWords, user: UInt64)] {
        let read = try store.columns(entry)
        guard read.chunk.entry(ColumnName.userID) != nil else { return [] }
        let users = try read.textKeys(ColumnName.userID, store.textKeys)
        guard users.contains(where: { $0 != 0 }) else { return [] }
        let installs = try read.keys(ColumnName.installID, store.textKeys)
        let times = try read.times(ColumnName.eventTime)
        let ids = try read.ids()
        var found: [(install: UInt64, time: Int64, id: UUIDWords, user: UInt64)] = []
        for row in 0..<read.chunk.rows where users[row] != 0 {
            if let last = found.last, last.install == installs[row] {
                if (last.time, last.id) > (times[row], ids[row]) { found[found.count - 1] = (installs[row], times[row], ids[row], users[row]) }
            } else {
                found.append((installs[row], times[row], ids[row], users[row]))
            }
        }
        return found
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

import HandzAnalyticsCore
import HandzSQLite

/// A number that changes whenever anything commits to the embedded store, from this process or
/// another: SQLite's `PRAGMA data_version` on one long-lived read-only connection changes when
/// another connection has committed since the last look (sqlite.org/pragma.html#pragma_data_version).
/// The page cache keys on it.
final class StoreVersion: Sendable {
    private struct State: @unchecked Sendable {
        let database: SQLiteDatabase
        var lastSeen: Int64 = -1
        var generation: Int64 = 0
    }
    private let state: Locked<State>

    init(path: String) throws {
        state = Locked(State(database: try SQLiteDatabase(path: path, readOnly: true)))
    }

    func current() throws -> Int64 {
        try state.withLock { state in
            let seen = try state.database.scalar("PRAGMA data_version") ?? 0
            if seen != state.lastSeen {
                state.lastSeen = seen
                state.generation += 1
            }
            return state.generation
        }
    }
}

import HandzAnalyticsCore
import HandzSQLite

/// A number that changes whenever anything commits to the embedded store, from this process or
/// another: SQLite's `PRAGMA data_version` on one long-lived read-only connection changes when
/// another connection has committed since the last look (sqlite.org/pragma.html#pragma_data_version).
/// The page cache keys on it.
///
/// On the segment engine (issue 34) an acknowledged request is in a segment file, not yet in the
/// SQLite file, whose version moves only at the next seal; `appended` (the segment writer's count
/// of requests written, which moves before their 200 goes out) is watched as well, so a page
/// drawn before a request was acknowledged is never served after it.
final class StoreVersion: Sendable {
    private struct State: @unchecked Sendable {
        let database: SQLiteDatabase
        var lastSeen: (dataVersion: Int64, appended: Int) = (-1, -1)
        var generation: Int64 = 0
    }
    private let state: Locked<State>
    private let appended: (@Sendable () -> Int)?

    init(path: String, appended: (@Sendable () -> Int)? = nil) throws {
        state = Locked(State(database: try SQLiteDatabase(path: path, readOnly: true)))
        self.appended = appended
    }

    func current() throws -> Int64 {
        try state.withLock { state in
            let seen = (dataVersion: try state.database.scalar("PRAGMA data_version") ?? 0, appended: appended?() ?? 0)
            if seen != state.lastSeen {
                state.lastSeen = seen
                state.generation += 1
            }
            return state.generation
        }
    }
}

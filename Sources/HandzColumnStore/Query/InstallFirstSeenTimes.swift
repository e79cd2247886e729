import HandzAnalyticsCore
import HandzSQLite
import HandzStore
import Synchronization

/// Each install's first-seen time (`install_first_seen`, issue 32 §6), read from the SQLite
/// log's table, which the store keeps beside its events: the cohort KPIs put an install whose
/// first-seen time is before its first stored `app_open` in no cohort. Small (one row per
/// install), but not free: 100,000 rows read and parsed are ~35 ms, which a trend or funnel —
/// which never look at it — paid on every page and command (perf of `serve`, BENCHMARKS
/// "Analysts' insights"). So it is read on first use (``reading(path:)``), or handed a loader
/// that keeps it between pages (`LiveColumnStore`).
public struct InstallFirstSeenTimes: Sendable {
    /// The table's rows, by install id.
    struct Table: Sendable {
        var byUUID: [UUIDWords: Int64] = [:]
        var byText: [String: Int64] = [:]

        init() {}

        init(database: SQLiteDatabase) throws {
            let rows = try database.prepare("SELECT install_id, first_app_open_ms FROM \(InstallFirstSeen.table)").query { row in (row.text(0) ?? "", row.int64(1)) }
            for (id, time) in rows {
                add(install: id, firstSeenMs: time)
            }
        }

        mutating func add(install: String, firstSeenMs: Int64) {
            if let id = UUIDWords(lowercaseString: install) {
                byUUID[id] = min(byUUID[id] ?? .max, firstSeenMs)
            } else {
                byText[install] = min(byText[install] ?? .max, firstSeenMs)
            }
        }

        var isEmpty: Bool { byUUID.isEmpty && byText.isEmpty }
        /// Whether a lookup needs the UUID dictionary (canonical ids: always, in practice).
        var needsUUIDs: Bool { !byUUID.isEmpty }

        /// The time of the install whose text key is `key` (``TextKeys``), nil when it has no row.
        func time(key: UInt64, _ keys: TextKeys, _ dictionaries: Dictionaries) -> Int64? {
            // A UUID code: its words, without making its text (a string per actor of a cohort).
            if key < TextKeys.stringTag, let id = dictionaries.uuid(UInt32(key)) { return byUUID[id] }
            guard let text = keys.text(key, dictionaries) else { return nil }
            if let id = UUIDWords(lowercaseString: text) { return byUUID[id] }
            return byText[text]
        }
    }

    /// The table, loaded on the first ``table()`` and kept for this value's copies.
    private final class Loader: Sendable {
        let load: @Sendable () throws -> Table
        let loaded = Mutex<Table?>(nil)

        init(_ load: @escaping @Sendable () throws -> Table) { self.load = load }
    }

    private let loader: Loader

    /// No rows: every install's first-seen time unknown (no cohort is narrowed by it).
    public init() { loader = Loader { Table() } }

    /// The table of the store open at `database`, read now.
    public init(database: SQLiteDatabase) throws {
        let table = try Table(database: database)
        loader = Loader { table }
    }

    /// The table as `load` gives it, asked for on first use.
    init(loading load: @escaping @Sendable () throws -> Table) { loader = Loader(load) }

    /// The table of the store file at `path` (read-only; nothing is written), read on first use.
    public static func reading(path: String) -> InstallFirstSeenTimes {
        InstallFirstSeenTimes { try Table(database: try SQLiteDatabase(path: path, readOnly: true)) }
    }

    /// The rows, read on the first call.
    func table() throws -> Table {
        try loader.loaded.withLock { loaded in
            if let loaded { return loaded }
            let table = try loader.load()
            loaded = table
            return table
        }
    }
}

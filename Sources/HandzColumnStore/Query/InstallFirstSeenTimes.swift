import HandzAnalyticsCore
import HandzSQLite
import HandzStore

/// Each install's first-seen time (`install_first_seen`, issue 32 §6), read from the SQLite
/// log's table, which the store keeps beside its events: the cohort KPIs put an install whose
/// first-seen time is before its first stored `app_open` in no cohort. Small (one row per
/// install), read once per query session.
public struct InstallFirstSeenTimes: Sendable {
    var byUUID: [UUIDWords: Int64] = [:]
    var byText: [String: Int64] = [:]

    public init() {}

    /// The table of the store at `path` (read-only; nothing is written).
    public init(database: SQLiteDatabase) throws {
        let rows = try database.prepare("SELECT install_id, first_app_open_ms FROM \(InstallFirstSeen.table)").query { row in (row.text(0) ?? "", row.int64(1)) }
        for (id, time) in rows {
            add(install: id, firstSeenMs: time)
        }
    }

    public mutating func add(install: String, firstSeenMs: Int64) {
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
        guard let text = keys.text(key, dictionaries) else { return nil }
        if key < TextKeys.stringTag, let id = dictionaries.uuid(UInt32(key)) { return byUUID[id] }
        if let id = UUIDWords(lowercaseString: text) { return byUUID[id] }
        return byText[text]
    }
}

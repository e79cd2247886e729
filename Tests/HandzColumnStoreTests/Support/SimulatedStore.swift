import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzColumnStore
import HandzSQLite
import HandzStore
import HandzSynthetic
import HandzTestSupport

/// A real store file holding a simulated dataset (JourneySimulator, synthetic ids only), and its
/// column store sealed beside it.
final class SimulatedStore: @unchecked Sendable {
    static let shared: SimulatedStore = {
        let store = try! SimulatedStore(installs: 300, days: 21, seed: 33)
        removeAtExit(store.directory)
        return store
    }()

    static let fromMs: Int64 = 1_772_323_200_000  // 2026-03-01T00:00:00Z
    let directory: URL
    let path: String
    let days: Int
    var toMs: Int64 { Self.fromMs + Int64(days) * 86_400_000 }
    var columnsDirectory: String { ColumnStore.directory(forDatabase: path) }

    init(installs: Int, days: Int, seed: UInt64) throws {
        self.days = days
        directory = try temporaryDirectory("handz-columns")
        path = directory.appendingPathComponent("store.sqlite").path
        var simulator = JourneySimulator(catalog: RepositoryCatalog.catalog, options: .init(installs: installs, days: days, seed: seed, startMs: Self.fromMs))
        var lines: [String] = []
        simulator.run { lines.append($0) }
        try Self.insert(lines, path: path)
        try seal()
    }

    /// Seals whatever the log holds past the column store's watermark.
    @discardableResult
    func seal(rowsPerPart: Int = 1_000_000) throws -> LogSealer.Outcome {
        let database = try SQLiteDatabase(path: path)
        var sealer = LogSealer()
        sealer.rowsPerPart = rowsPerPart
        return try sealer.seal(database, into: try ColumnStoreWriter(directory: columnsDirectory))
    }

    /// Appends to the log a copy of the events of its first `days` days, a day later, under new
    /// event ids (new rows on days already sealed: the next seal writes parts and merges them
    /// with the live chunks of those days).
    func appendCopyOfFirstDays(_ days: Int) throws {
        try SQLiteDatabase(path: path).execute("""
            INSERT INTO events (event_id, event_name, event_time_ms, received_time_ms, install_id, session_id, user_id, user_state, app_version, build_number,
              platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties)
            SELECT randomblob(16), event_name, event_time_ms + 86400000, received_time_ms + 86400000, install_id, session_id, user_id, user_state, app_version,
              build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties FROM events
            WHERE event_time_ms < \(Self.fromMs + Int64(days) * 86_400_000)
            """)
    }

    /// Each NDJSON event as a log row (retries, which share an event id, stored once).
    static func insert(_ lines: [String], path: String) throws {
        let database = try SQLiteDatabase(path: path)
        // As the store keeps its file (`SQLiteEventStore`): a reader never blocks the writer.
        try database.execute("PRAGMA journal_mode = WAL")
        try StoreSchema.migrate(database, nowMs: 0)
        let insert = try database.prepare("""
            INSERT OR IGNORE INTO events (event_id, event_name, event_time_ms, received_time_ms, install_id, session_id, user_id, user_state,
              app_version, build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, 'key-test', ?17, ?18)
            """)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        try database.transaction {
            for line in lines {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                let time = Int64((formatter.date(from: object["event_time_utc"] as! String)!.timeIntervalSince1970 * 1000).rounded())
                let properties = try JSONSerialization.data(withJSONObject: object["properties"] ?? [String: Any](), options: [.sortedKeys])
                let text = { (key: String) -> SQLiteValue in (object[key] as? String).map { .text($0) } ?? .null }
                let id = UUID(uuidString: object["event_id"] as! String)!
                let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
                try insert.run([.blob(bytes), .text(object["event_name"] as! String), .integer(time), .integer(time + 2_000),
                                text("install_id"), text("session_id"), text("user_id"), text("user_state"), text("app_version"),
                                .text(String(describing: object["build_number"] ?? "1")), text("platform"), text("os_version"),
                                text("device_model"), text("locale"), text("timezone"), text("network_state"),
                                .text(RepositoryCatalog.catalog.version), .text(String(decoding: properties, as: UTF8.self))])
            }
        }
    }
}

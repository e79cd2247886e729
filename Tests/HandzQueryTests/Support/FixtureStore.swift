import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// One stored event of a fixture, as the store holds it.
struct FixtureEvent {
    var id: UInt8
    var name: String
    var timeMs: Int64
    var install: String
    var user: String? = nil
    var session = "s"
    var userState = "free"
    var networkState = "online"
    /// The `properties` object as JSON values (`"\"cold\""`, `true`, `3`).
    var properties: [String: String] = [:]

    /// 16 bytes: `id` first, so fixtures choose the tie-break order explicitly.
    var eventID: [UInt8] { [id] + [UInt8](repeating: 0, count: 15) }

    /// A property as the catalog writes values (JSON strings unquoted).
    func text(_ name: String) -> String? {
        switch name {
        case "user_state": return userState
        case "network_state": return networkState
        case "install_id": return install
        case "session_id": return session
        default:
            guard let raw = properties[name] else { return nil }
            if raw.hasPrefix("\"") {
                return (try? JSONSerialization.jsonObject(with: Data(raw.utf8), options: .fragmentsAllowed)) as? String
            }
            return raw
        }
    }
}

/// A real store file (the store's own schema) holding fixture events, analysed with the
/// SQLite SQL the builders write, and its column store sealed beside it: every fixture holds
/// the column engine to the same hand-computed numbers (issue 33).
struct FixtureStore {
    let directory: URL
    let path: String

    init(_ events: [FixtureEvent]) throws {
        directory = try temporaryDirectory("handz-query")
        path = directory.appendingPathComponent("store.sqlite").path
        try Self.insert(events, path: path)
        try LogSealer().seal(try SQLiteDatabase(path: path), into: try ColumnStoreWriter(directory: ColumnStore.directory(forDatabase: path)))
    }

    private static func insert(_ events: [FixtureEvent], path: String) throws {
        let database = try SQLiteDatabase(path: path)
        // As the store keeps its file (`SQLiteEventStore`): a reader never blocks the writer.
        try database.execute("PRAGMA journal_mode = WAL")
        try StoreSchema.migrate(database, nowMs: 0)
        let insert = try database.prepare("""
            INSERT INTO events (event_id, event_name, event_time_ms, received_time_ms, install_id, session_id, user_id, user_state,
              app_version, build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties)
            VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7, '1.0', '1', 'iOS', 'iOS 18.6', 'iPhone15,2', 'en_US', 'UTC', ?8, 'test', '1', ?9)
            """)
        try database.transaction {
            for event in events {
                let properties = "{" + event.properties.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
                try insert.run([.blob(event.eventID), .text(event.name), .integer(event.timeMs), .text(event.install), .text(event.session),
                                event.user.map { .text($0) } ?? .null, .text(event.userState), .text(event.networkState), .text(properties)])
            }
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    func analysis() throws -> StoreAnalysis { try StoreAnalysis(path: path, catalog: RepositoryCatalog.catalog) }

    /// The column engine on the sealed copy.
    func columns() throws -> ColumnPanels {
        ColumnPanels(store: try ColumnStore(directory: ColumnStore.directory(forDatabase: path)), catalog: RepositoryCatalog.catalog,
                     firstSeen: try InstallFirstSeenTimes(database: try SQLiteDatabase(path: path, readOnly: true)))
    }

    /// The KPI on SQLite, checked against the column engine.
    func kpi(_ query: KPIQuery) throws -> KPIReport {
        let report = try analysis().kpi(query)
        if case .kpi(let columns)? = try columns().answer(.kpi(query)) {
            #expect(columns == report, "the column engine differs on \(query.kpi.id)")
        } else {
            Issue.record("the column engine did not answer \(query.kpi.id)")
        }
        return report
    }

    /// The event query on SQLite, checked against the column engine.
    func eventQuery(_ query: EventQuery, fromMs: Int64, toMs: Int64) throws -> EventQueryResult {
        let result = try analysis().eventQuery(query, fromMs: fromMs, toMs: toMs)
        if case .query(let columns)? = try columns().answer(.events(query, fromMs: fromMs, toMs: toMs)) {
            #expect(columns == result, "the column engine differs on \(query.kind)")
        } else {
            Issue.record("the column engine did not answer a \(query.kind) query")
        }
        return result
    }

    /// The funnel's rows as the SQL returns them (breakdown, step) → (actors, median ms).
    func funnel(_ query: FunnelQuery) throws -> [FunnelKey: FunnelValue] {
        // Both ways the embedded store runs a funnel: the chain walk and the SQL.
        let analysis = try analysis()
        let report = try analysis.funnel(query)
        #expect(FunnelKey.table(try analysis.funnelBySQL(query)) == FunnelKey.table(report), "chain walk and SQL differ")
        if case .funnel(let columns)? = try columns().answer(.funnel(query)) {
            #expect(FunnelKey.table(columns) == FunnelKey.table(report), "the column engine differs")
        }
        return FunnelKey.table(report)
    }
}

struct FunnelKey: Hashable, CustomStringConvertible {
    var bucket: String??
    var step: Int
    var description: String { "\(bucket.map { $0 ?? "null" } ?? "all")/\(step)" }

    /// Non-zero steps of a report and its success row (step n + 1), overall (`bucket == nil`)
    /// and per breakdown value.
    static func table(_ report: FunnelReport) -> [FunnelKey: FunnelValue] {
        var out: [FunnelKey: FunnelValue] = [:]
        func add(_ bucket: String??, _ steps: [FunnelStepResult]) {
            for step in steps where step.actors > 0 || (step.links ?? 0) > 0 {
                out[FunnelKey(bucket: bucket, step: step.index)] = FunnelValue(actors: step.actors, medianMs: step.medianMsFromPrevious, links: step.links ?? 0)
            }
        }
        add(nil, report.steps + (report.success.map { [$0] } ?? []))
        for bucket in report.breakdown ?? [] { add(.some(bucket.value), bucket.steps + (bucket.success.map { [$0] } ?? [])) }
        return out
    }
}

struct FunnelValue: Equatable, CustomStringConvertible {
    var actors: Int64
    var medianMs: Int64?
    /// Funnels across people: links reaching the step.
    var links: Int64 = 0
    var description: String { "\(actors) (\(medianMs.map(String.init) ?? "–"))\(links > 0 ? " links \(links)" : "")" }
}

/// A funnel of real catalog events, for fixtures.
func fixtureFunnel(_ steps: [[String]], windowSeconds: Int64 = 3_600, filters: [Int: [PropertyFilter]] = [:], success: FunnelSuccess? = nil) -> FunnelDefinition {
    FunnelDefinition(
        id: "T", title: "fixture", spec: "test", windowSeconds: windowSeconds, success: "test", successCondition: success,
        steps: steps.enumerated().map { FunnelStep(events: $1, filters: filters[$0 + 1] ?? []) }
    )
}

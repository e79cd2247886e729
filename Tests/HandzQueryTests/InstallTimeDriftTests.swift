import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Issue 32 §6: an install's cohort must not move when a deletion re-keys its past or retention
/// removes its first `app_open`. A real store file, written through the store's writer (as the
/// endpoint and `import` write), deleted and purged through the store's own steps, and the cohort
/// KPIs computed the way `handz-analytics kpi` computes them (``StoreAnalysis``, on the analytical
/// layer and on the log).
@Suite struct InstallTimeDriftTests {
    /// 2026-03-02T00:00:00Z.
    static let base: Int64 = 1_772_409_600_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
    static let user = "5a1c3e7f-9b2d-4f6a-8c0e-1d3f5a7b9c2e"

    /// One cohort's three figures: activation within 24 h, D1 return, time to first flow.
    struct Cohort: Equatable, CustomStringConvertible {
        var activation: KPIRows
        var returnedD1: KPIRows
        var firstFlow: KPIRows
        var description: String { "activation \(activation), D1 \(returnedD1), time to first flow \(firstFlow)" }
    }

    /// A store file with its writer, and the events it was sent.
    final class Store {
        let directory: URL
        let path: String
        let store: SQLiteEventStore
        var nextID: UInt64 = 1

        init() throws {
            directory = try temporaryDirectory("handz-install-time")
            path = directory.appendingPathComponent("store.sqlite").path
            store = try SQLiteEventStore(path: path)
        }

        /// Sends one request of events of one install, received at `receivedMs`.
        func send(install: String, user: String? = nil, receivedMs: Int64, _ events: [(name: String, timeMs: Int64)]) async throws {
            var rows = EventRows()
            for event in events {
                var fields: [EventRows.Field: String] = [
                    .eventName: event.name, .installID: install, .sessionID: "2b6a9c1d-7e3f-4a5b-8c9d-\(String(format: "%012d", event.timeMs / InstallTimeDriftTests.day))",
                    .userState: "free", .appVersion: "1.4.2", .buildNumber: "418", .platform: "iOS", .osVersion: "iOS 18.6",
                    .deviceModel: "iPhone15,2", .locale: "en_US", .timezone: "UTC", .networkState: "online", .properties: "{}",
                ]
                fields[.userID] = user
                rows.append(eventID: (0x1234, nextID), eventTimeMs: event.timeMs, fields: fields)
                nextID += 1
            }
            let batch = IngestBatch(receivedTimeMs: receivedMs, keyID: "hzk_test", catalogVersion: "1.3.0", sentAtMs: nil, bodyBytes: 100, rows: rows, rejected: [])
            let result = try await store.append(batch)
            #expect(result.accepted == events.count)
        }

        /// The cohort of [from, from + 1 day), read from the column store (as `kpi` does, sealed
        /// as `serve` seals it) and from the log; the two must agree.
        func cohort(from: Int64) throws -> Cohort {
            try LogSealer().seal(try SQLiteDatabase(path: path), into: try ColumnStoreWriter(directory: ColumnStore.directory(forDatabase: path)))
            let analysis = try StoreAnalysis(path: path, catalog: RepositoryCatalog.catalog)
            let columns = ColumnPanels(store: try ColumnStore(directory: ColumnStore.directory(forDatabase: path)), catalog: RepositoryCatalog.catalog,
                                       firstSeen: try InstallFirstSeenTimes(database: try SQLiteDatabase(path: path, readOnly: true)))
            var answers: [Cohort] = []
            for engine in ["log", "columns"] {
                func run(_ id: String, actor: ActorKind = .install) throws -> KPIRows {
                    let kpi = try #require(RepositoryCatalog.catalog.kpis.first { $0.id == id })
                    let query = KPIQuery(kpi: kpi, fromMs: from, toMs: from + InstallTimeDriftTests.day, actor: actor)
                    if engine == "log" { return try analysis.kpi(query).rows }
                    guard case .kpi(let report)? = try columns.answer(.kpi(query)) else { throw ColumnsDidNotAnswer() }
                    return report.rows
                }
                answers.append(Cohort(activation: try run("activation_rate_24h"), returnedD1: try run("retention_d1"), firstFlow: try run("time_to_first_flow")))
                // By user (`--actor user`): every user here has one install, so the same numbers.
                #expect(try run("activation_rate_24h", actor: .user) == answers.last?.activation, "by user, \(engine)")
            }
            #expect(answers[0] == answers[1], "the column store and the log disagree")
            return answers[0]
        }

        func remove() {
            store.closeNow()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test("a deletion that re-keys an install's past leaves every cohort as it was: the device's later events join no later cohort")
    func deletionKeepsCohorts() async throws {
        let store = try Store()
        defer { store.remove() }
        let (base, hour, day) = (Self.base, Self.hour, Self.day)
        let deleted = "a1a1a1a1-0000-4000-8000-00000000000a", kept = "b2b2b2b2-0000-4000-8000-00000000000b"
        let late = "c3c3c3c3-0000-4000-8000-00000000000c"
        // Day 0: two installs; the deleted user's saves a flow after 1 h and comes back on day 1.
        try await store.send(install: deleted, user: Self.user, receivedMs: base + 2 * day,
                             [("app_open", base + hour), ("flow_saved_success", base + 2 * hour), ("app_open", base + day + hour)])
        try await store.send(install: kept, receivedMs: base + 2 * day, [("app_open", base + hour), ("flow_saved_success", base + 3 * hour)])
        // The account is deleted on day 5; the device keeps sending, signed out, on days 10 and 11.
        let (request, _) = try store.store.requestDeletionNow(userID: Self.user, nowMs: base + 5 * day)
        try await store.send(install: deleted, receivedMs: base + 12 * day,
                             [("app_open", base + 10 * day + hour), ("flow_saved_success", base + 10 * day + 2 * hour), ("app_open", base + 11 * day + hour)])
        // Another install on day 13, so every window above has ended within the data.
        try await store.send(install: late, receivedMs: base + 14 * day, [("app_open", base + 13 * day)])

        let dayZero = try store.cohort(from: base), dayTen = try store.cohort(from: base + 10 * day)
        #expect(dayZero == Cohort(activation: .ratio(numerator: 2, denominator: 2), returnedD1: .ratio(numerator: 1, denominator: 2),
                                  firstFlow: .median(milliseconds: hour, actors: 2)))
        #expect(dayTen == Cohort(activation: .ratio(numerator: 0, denominator: 0), returnedD1: .ratio(numerator: 0, denominator: 0),
                                 firstFlow: .median(milliseconds: nil, actors: 0)))

        let claim = try #require(try store.store.claimDeletionNow(owner: "test", canRewriteLake: false, oldVersionsDueMs: 0,
                                                                  storeDueMs: base + 6 * day, nowMs: base + 6 * day, leaseMs: 60_000))
        #expect(claim.request.id == request.id)
        let result = try store.store.deidentifyNow(claim, nowMs: base + 6 * day)
        #expect(result.installs == 1 && result.events == 3)

        #expect(try store.cohort(from: base) == dayZero, "the day-0 cohort changed with the deletion")
        #expect(try store.cohort(from: base + 10 * day) == dayTen, "the deleted user's device joined the day-10 cohort")
    }

    @Test("the engines' install_first_seen table has exactly the store's columns, in order, with the store's nullability")
    func firstSeenColumnsMatchTheStore() throws {
        let store = try Store()
        defer { store.remove() }
        let database = try SQLiteDatabase(path: store.path, readOnly: true)
        let stored = try database.prepare("SELECT name, \"notnull\" FROM pragma_table_info('\(InstallFirstSeen.table)') ORDER BY cid").query { ($0.text(0)!, $0.int64(1) == 0) }
        #expect(InstallFirstSeen.table == InstallFirstSeenTable.name)
        #expect(stored.map(\.0) == InstallFirstSeenTable.columns.map(\.name))
        #expect(stored.allSatisfy { !$0.1 }, "every column NOT NULL")
        for dialect in SQLDialect.allCases {
            #expect(EventsDDL.createTable(dialect).contains("CREATE TABLE install_first_seen ("), "\(dialect)")
        }
    }

    @Test("retention that removes an install's first app_open leaves every later cohort as it was")
    func retentionKeepsCohorts() async throws {
        let store = try Store()
        defer { store.remove() }
        let (base, hour, day) = (Self.base, Self.hour, Self.day)
        let old = "d4d4d4d4-0000-4000-8000-00000000000d", young = "e5e5e5e5-0000-4000-8000-00000000000e"
        let late = "f6f6f6f6-0000-4000-8000-00000000000f"
        // An install first opened on day 0, and opened again on days 20 and 21 with a save on day 20.
        try await store.send(install: old, receivedMs: base + hour, [("app_open", base + hour)])
        try await store.send(install: old, receivedMs: base + 21 * day + 2 * hour,
                             [("app_open", base + 20 * day + hour), ("flow_saved_success", base + 20 * day + 2 * hour), ("app_open", base + 21 * day + hour)])
        // An install of day 20 that saves after 5 h and does not come back.
        try await store.send(install: young, receivedMs: base + 21 * day, [("app_open", base + 20 * day + hour), ("flow_saved_success", base + 20 * day + 5 * hour)])
        try await store.send(install: late, receivedMs: base + 24 * day, [("app_open", base + 23 * day)])

        let dayTwenty = try store.cohort(from: base + 20 * day)
        #expect(dayTwenty == Cohort(activation: .ratio(numerator: 1, denominator: 1), returnedD1: .ratio(numerator: 0, denominator: 1),
                                    firstFlow: .median(milliseconds: 4 * hour, actors: 1)))

        // Retention: what was received before day 10 goes, the old install's first app_open with it.
        let purged = try await store.store.purge(receivedBeforeMs: base + 10 * day, nowMs: base + 30 * day)
        #expect(purged.events == 1)
        #expect(try store.cohort(from: base + 20 * day) == dayTwenty, "the old install joined the day-20 cohort once its first app_open was purged")
    }
}

/// The column engine left a query to SQLite (it answers every KPI, so a test failure).
struct ColumnsDidNotAnswer: Error {}

import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzTestSupport
import Testing

/// Paths (issue 35 §4) on the column engine give the SQL's numbers on the log, and the SQL's are
/// the log's sessions walked by hand.
@Suite struct ColumnPathsAgreementTests {
    let data = SimulatedStore.shared
    let catalog = RepositoryCatalog.catalog
    static let dayMs: Int64 = 86_400_000

    @Test("next and previous, 1 to 5 steps, a filtered anchor and a union: the column engine agrees with the SQL on the log")
    func agrees() throws {
        let columns = ColumnPaths(store: try ColumnStore(directory: data.columnsDirectory), catalog: catalog)
        let log = try StoreAnalysis(path: data.path, catalog: catalog)
        let (from, to) = (SimulatedStore.fromMs + 2 * Self.dayMs, data.toMs - 3 * Self.dayMs)
        var checked = 0
        for anchor in ["screen_viewed", "flow_save_attempt|flow_draft_created", "app_open[start_type=cold]"] {
            for direction in PathQuery.Direction.allCases {
                for depth in [1, 3, 5] {
                    let query = PathQuery(anchor: try PathQuery.anchor(anchor, catalog: catalog), direction: direction, depth: depth, fromMs: from, toMs: to)
                    let expected = try log.paths(query)
                    #expect(try columns.run(query) == expected, "\(anchor) \(direction) \(depth)")
                    #expect(expected.sessions > 0, "\(anchor)")
                    checked += 1
                }
            }
        }
        #expect(checked == 18)
    }

    @Test("the SQL's paths are the log's sessions walked by hand: each session's first anchor, its next two events by time then id")
    func walkedByHand() throws {
        let log = try StoreAnalysis(path: data.path, catalog: catalog)
        let (from, to) = (SimulatedStore.fromMs, data.toMs)
        let report = try log.paths(PathQuery(anchor: EventMatch(events: ["flow_save_attempt"]), depth: 2, fromMs: from, toMs: to))
        let database = try SQLiteDatabase(path: data.path, readOnly: true)
        let events = try database.prepare("SELECT install_id, session_id, event_name, event_time_ms, event_id FROM events ORDER BY install_id, session_id, event_time_ms, event_id")
            .query { ($0.text(0) ?? "", $0.text(1) ?? "", $0.text(2) ?? "", $0.int64(3), $0.blob(4)) }
        var bySession: [String: [(name: String, time: Int64)]] = [:]
        for (install, session, name, time, _) in events { bySession[install + "/" + session, default: []].append((name, time)) }
        var counts: [[String?]: Int64] = [:]
        for (_, session) in bySession {
            guard let first = session.firstIndex(where: { $0.name == "flow_save_attempt" && $0.time >= from && $0.time < to }) else { continue }
            let after = session[(first + 1)...].prefix(2).map { Optional($0.name) }
            counts[after + Array(repeating: nil, count: 2 - after.count), default: 0] += 1
        }
        #expect(Dictionary(uniqueKeysWithValues: report.paths.map { ($0.steps, $0.sessions) }) == counts)
        #expect(report.sessions == counts.values.reduce(0, +) && report.sessions > 0)
        // The flow chart's nodes add up to the sessions at every step until paths end.
        #expect(report.nodes.filter { $0.step == 1 }.reduce(0) { $0 + $1.sessions } == report.sessions)
    }
}

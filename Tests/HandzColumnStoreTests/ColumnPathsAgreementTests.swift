import Foundation
import HandzAnalysis
import HandzAnalyticsCore
@testable import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzStore
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
                    #expect(try columns.walkFromAnchors(query) != nil, "the simulated store takes the walk from the anchors")
                    #expect(expected.sessions > 0, "\(anchor)")
                    checked += 1
                }
            }
        }
        #expect(checked == 18)
    }

    @Test("two installs that share a session id are two sessions, as the SQL partitions: the general walk agrees with the SQL on the log")
    func sharedSessionID() async throws {
        let directory = try temporaryDirectory("handz-paths-shared-session")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("paths.sqlite").path
        let store = try SQLiteEventStore(path: path)
        let session = "2b6a9c1d-7e3f-4a5b-8c9d-0e1f2a3b4c5d"
        let from = SimulatedStore.fromMs
        // Install 1: app_open, screen_viewed, flow_builder_opened; install 2, the same session id:
        // library_viewed, screen_viewed, screen_viewed, app_background.
        let journeys: [(install: String, events: [String])] = [
            ("0f7c3a52-9d1e-4a8b-b6c2-000000000001", ["app_open", "screen_viewed", "flow_builder_opened"]),
            ("0f7c3a52-9d1e-4a8b-b6c2-000000000002", ["library_viewed", "screen_viewed", "screen_viewed", "app_background"]),
        ]
        var rows = EventRows()
        var id: UInt64 = 1
        for journey in journeys {
            for (offset, name) in journey.events.enumerated() {
                rows.append(eventID: (0x4A, id), eventTimeMs: from + 60_000 * Int64(offset + 1),
                            fields: [.eventName: name, .installID: journey.install, .sessionID: session, .userState: "free", .appVersion: "1.4.2",
                                     .buildNumber: "418", .platform: "iOS", .osVersion: "iOS 18.6", .deviceModel: "iPhone15,2", .locale: "en_US",
                                     .timezone: "UTC", .networkState: "online", .properties: "{}"])
                id += 1
            }
        }
        _ = try await store.append(IngestBatch(receivedTimeMs: from + 600_000, keyID: "key_ios_1", catalogVersion: catalog.version, sentAtMs: nil,
                                               bodyBytes: 1_000, rows: rows, rejected: []))
        await store.close()
        // The SQL's answers on the log, before the seal moves its rows into the column store.
        let log = try StoreAnalysis(path: path, catalog: catalog)
        var expected: [(query: PathQuery, report: PathReport)] = []
        for direction in PathQuery.Direction.allCases {
            for depth in [1, 2, 3] {
                let query = PathQuery(anchor: EventMatch(events: ["screen_viewed"]), direction: direction, depth: depth, fromMs: from, toMs: from + 86_400_000)
                expected.append((query, try log.paths(query)))
                #expect(expected.last?.report.sessions == 2, "one path per install's session")
            }
        }
        try SegmentDeletionTests.sealLog(path)
        let columnStore = try ColumnStore(directory: ColumnStore.directory(forDatabase: path))
        let columns = ColumnPaths(store: columnStore, catalog: catalog)
        for (query, report) in expected {
            #expect(try columns.walkFromAnchors(query) == nil, "the store takes the general walk")
            #expect(try columns.run(query) == report, "\(query.direction) \(query.depth)")
        }
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

    @Test("the slots' parts number every slot once, densely from 0 in each part, whatever the count of sessions and parts")
    func slotParts() {
        for parts in 1...3 {
            for sessions in [0, 1, SlotParts.blockSize - 1, SlotParts.blockSize, 2 * SlotParts.blockSize + 7, 5 * SlotParts.blockSize] {
                let layout = SlotParts(sessions: sessions, parts: parts)
                var seen = (0..<parts).map { Set<Int>(minimumCapacity: layout.sessions(inPart: $0)) }
                for slot in 0..<sessions {
                    let (part, local) = layout.place(slot)
                    #expect(seen[part].insert(local).inserted, "slot \(slot) of \(sessions) in \(parts) parts")
                }
                for part in 0..<parts {
                    #expect(seen[part] == Set(0..<layout.sessions(inPart: part)), "part \(part) of \(parts), \(sessions) sessions")
                }
            }
        }
    }
}

import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzQuery
import HandzSynthetic
import HandzTestSupport
import Testing

/// Hand-computed fixtures for crash_free_sessions (`sessions_without_report`, CH33 §5.2 Quality,
/// §6.11): crash_reported arrives on the next launch and names the crashed session in
/// crashed_session_id; an install's last session without a crash is unknown (left_out). Each
/// fixture also runs the dashboards' session_share query and must give the KPI's numbers.
@Suite struct CrashFreeSessionsFixtureTests {
    static let base = KPIFixtureTests.base
    static let day = KPIFixtureTests.day
    static let hour: Int64 = 3_600_000

    /// The KPI over [from, to), and the launch_health panel's query over the same range (its
    /// rolling window spans the whole range, so its last point is the KPI over the range).
    func run(_ events: [FixtureEvent], from: Int64 = base, to: Int64 = base + 7 * day) throws -> (KPIReport, EventQueryResult) {
        let kpi = try #require(RepositoryCatalog.catalog.kpis.first { $0.id == "crash_free_sessions" })
        let store = try FixtureStore(events)
        defer { store.remove() }
        let report = try store.kpi(KPIQuery(kpi: kpi, fromMs: from, toMs: to))
        let days = (to - from + Self.day - 1) / Self.day
        let query = EventQuery(kind: .sessionShare, match: EventMatch(events: ["crash_reported"]), rollingDays: max(days, 2), sessionKey: "crashed_session_id")
        return (report, try store.eventQuery(query, fromMs: from, toMs: to))
    }

    /// The KPI's (numerator, denominator, left_out) as the session share's last rolling point.
    func lastRolling(_ result: EventQueryResult) -> [Int64]? {
        guard case .sessions(_, let rolling) = result, let last = rolling.last else { return nil }
        return [last.numerator, last.denominator, last.leftOut]
    }

    func crash(_ id: UInt8, _ timeMs: Int64, install: String, session: String, naming crashed: String?) -> FixtureEvent {
        FixtureEvent(id: id, name: "crash_reported", timeMs: timeMs, install: install, session: session,
                     properties: crashed.map { ["crashed_session_id": "\"\($0)\""] } ?? [:])
    }

    @Test("a crash reported on the next launch counts against the session that crashed, not the one that reported it")
    func attributedToTheCrashedSession() throws {
        let t = Self.base + Self.hour
        let (report, share) = try run([
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a", session: "s1"),
            FixtureEvent(id: 2, name: "screen_viewed", timeMs: t + 1_000, install: "a", session: "s1"),
            FixtureEvent(id: 3, name: "app_open", timeMs: t + Self.day, install: "a", session: "s2"),
            crash(4, t + Self.day + 1_000, install: "a", session: "s2", naming: "s1"),
            FixtureEvent(id: 5, name: "app_open", timeMs: t + 2 * Self.day, install: "a", session: "s3"),
        ])
        // s1 crashed; s2 reported it and is crash-free (s3 came later); s3 is the install's last: unknown.
        #expect(report.rows == .ratio(numerator: 1, denominator: 2))
        #expect(report.leftOut == 1)
        #expect(lastRolling(share) == [1, 2, 1])
        guard case .sessions(let daily, _) = share else { Issue.record("not a session share"); return }
        // Day 0: s1, crashed. Day 1: s2, good. Day 2: s3, unknown.
        #expect(daily.map { [$0.day, $0.numerator, $0.denominator, $0.leftOut] } == [[0, 0, 1, 0], [1, 1, 1, 0], [2, 0, 0, 1]])
    }

    @Test("a crash_reported without crashed_session_id (an older build) counts against the session it was sent in")
    func olderBuildsCountTheReportingSession() throws {
        let t = Self.base + Self.hour
        let (report, share) = try run([
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "b", session: "s1"),
            crash(2, t + 1_000, install: "b", session: "s1", naming: nil),
            FixtureEvent(id: 3, name: "app_open", timeMs: t + Self.day, install: "b", session: "s2"),
            FixtureEvent(id: 4, name: "app_open", timeMs: t + 2 * Self.day, install: "b", session: "s3"),
            // The last session of install c, but it holds an old build's report: crashed, so known.
            FixtureEvent(id: 5, name: "app_open", timeMs: t, install: "c", session: "s5"),
            crash(6, t + 1_000, install: "c", session: "s5", naming: nil),
        ])
        #expect(report.rows == .ratio(numerator: 1, denominator: 3))
        #expect(report.leftOut == 1)
        #expect(lastRolling(share) == [1, 3, 1])
    }

    @Test("an install's last session, by (event_time_utc, event_id), stays unknown and is counted in left_out")
    func lastSessionIsUnknown() throws {
        let t = Self.base + Self.hour
        let (report, share) = try run([
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a", session: "s1"),
            FixtureEvent(id: 2, name: "app_open", timeMs: t + Self.hour, install: "a", session: "s2"),
            // Same millisecond: event_id breaks the tie, so s4 (0x20) is after s3 (0x10).
            FixtureEvent(id: 0x20, name: "screen_viewed", timeMs: t + 5, install: "d", session: "s4"),
            FixtureEvent(id: 0x10, name: "screen_viewed", timeMs: t + 5, install: "d", session: "s3"),
            // s6 is open across s7: s6 holds the install's last event, so s6 is unknown, s7 known.
            FixtureEvent(id: 3, name: "app_open", timeMs: t, install: "e", session: "s6"),
            FixtureEvent(id: 4, name: "app_open", timeMs: t + Self.hour, install: "e", session: "s7"),
            FixtureEvent(id: 5, name: "screen_viewed", timeMs: t + 2 * Self.hour, install: "e", session: "s6"),
        ])
        // Known and crash-free: s1, s3, s7. Unknown: s2, s4, s6.
        #expect(report.rows == .ratio(numerator: 3, denominator: 3))
        #expect(report.leftOut == 3)
        #expect(lastRolling(share) == [3, 3, 3])
    }

    @Test("a crash reported after `to` counts for a session inside the range")
    func reportAfterTheRange() throws {
        let to = Self.base + 7 * Self.day
        let (report, share) = try run([
            FixtureEvent(id: 1, name: "app_open", timeMs: to - Self.hour, install: "a", session: "s1"),
            FixtureEvent(id: 2, name: "app_open", timeMs: to + Self.day, install: "a", session: "s2"),
            crash(3, to + Self.day + 1_000, install: "a", session: "s2", naming: "s1"),
        ], to: to)
        // s1 is the only session in the range; the launch after `to` reported its crash.
        #expect(report.rows == .ratio(numerator: 0, denominator: 1))
        #expect(report.leftOut == 0)
        #expect(lastRolling(share) == [0, 1, 0])
    }

    @Test("random histories: the column engine's per-session read gives the daily and rolling rows of the printed statement on the log", arguments: 1...6)
    func layerReaderAgreesWithTheStatement(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        // Sessions that run over several days, crashes named, unnamed (older builds) and
        // reported after `to`; some ids canonical UUIDs (16 bytes in the layer), some not.
        let sessions = (0..<14).map { $0 % 3 == 0 ? "s\($0)" : "00000000-0000-4000-8000-0000000000\(String(format: "%02d", $0))" }
        var events: [FixtureEvent] = []
        for id in 0..<240 {
            let session = sessions[Int(random.int(in: 0...13))]
            let install = "i\(sessions.firstIndex(of: session)! % 4)"
            let time = Self.base + random.int(in: 0...(12 * 24)) * Self.hour + random.int(in: 0...59) * 60_000
            if random.int(in: 0...9) == 0 {
                events.append(crash(UInt8(id), time, install: install, session: session, naming: random.int(in: 0...3) == 0 ? nil : sessions[Int(random.int(in: 0...13))]))
            } else {
                events.append(FixtureEvent(id: UInt8(id), name: random.pick(["app_open", "screen_viewed"]), timeMs: time, install: install, session: session))
            }
        }
        let store = try FixtureStore(events)
        defer { store.remove() }
        let log = try StoreAnalysis(path: store.path, catalog: RepositoryCatalog.catalog)
        for rollingDays: Int64 in [2, 3, 7] {
            let query = EventQuery(kind: .sessionShare, match: EventMatch(events: ["crash_reported"]), rollingDays: rollingDays, sessionKey: "crashed_session_id")
            let (from, to) = (Self.base + Self.day, Self.base + 10 * Self.day)
            let expected = try log.eventQuery(query, fromMs: from, toMs: to)
            #expect(try store.eventQuery(query, fromMs: from, toMs: to) == expected, "rolling \(rollingDays) days: the column engine")
            guard case .sessions(let daily, let rolling) = expected else { Issue.record("not a session share"); return }
            #expect(daily.count > 5 && rolling.contains { $0.numerator < $0.denominator }, "the data has days and crashes")
        }
    }
}

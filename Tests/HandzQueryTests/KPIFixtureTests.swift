import HandzAnalyticsCore
import HandzQuery
import HandzTestSupport
import Testing

/// Hand-computed fixtures for the KPI definitions of `catalog/kpis.yaml`, on a real store file.
@Suite struct KPIFixtureTests {
    static let base = FunnelFixtureTests.base
    static let day: Int64 = 86_400_000

    func run(_ id: String, _ events: [FixtureEvent], from: Int64 = base, to: Int64 = base + 7 * day) throws -> KPIReport {
        let kpi = try #require(RepositoryCatalog.catalog.kpis.first { $0.id == id })
        let store = try FixtureStore(events)
        defer { store.remove() }
        return try store.analysis().kpi(KPIQuery(kpi: kpi, fromMs: from, toMs: to))
    }

    @Test("activation counts saves at or after install time and at most 24 h later; earlier installs are not in the cohort")
    func activation() throws {
        let t = Self.base + 3_600_000
        let report = try run("activation_rate_24h", [
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a"),
            FixtureEvent(id: 2, name: "flow_saved_success", timeMs: t + Self.day, install: "a"),
            FixtureEvent(id: 3, name: "app_open", timeMs: t, install: "b"),
            FixtureEvent(id: 4, name: "flow_saved_success", timeMs: t + Self.day + 1, install: "b"),
            FixtureEvent(id: 5, name: "app_open", timeMs: Self.base - 1, install: "c"),
            FixtureEvent(id: 6, name: "flow_saved_success", timeMs: t, install: "c"),
            FixtureEvent(id: 7, name: "flow_saved_success", timeMs: t - 1, install: "d"),
            FixtureEvent(id: 8, name: "app_open", timeMs: t, install: "d"),
        ])
        #expect(report.rows == .ratio(numerator: 1, denominator: 3))
    }

    @Test("day-N retention is the exact 24 h period N days after install time")
    func retention() throws {
        let t = Self.base + 3_600_000
        let report = try run("retention_d1", [
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a"),
            FixtureEvent(id: 2, name: "app_open", timeMs: t + Self.day, install: "a"),
            FixtureEvent(id: 3, name: "app_open", timeMs: t, install: "b"),
            FixtureEvent(id: 4, name: "app_open", timeMs: t + 2 * Self.day - 1, install: "b"),
            FixtureEvent(id: 5, name: "app_open", timeMs: t, install: "c"),
            FixtureEvent(id: 6, name: "app_open", timeMs: t + 2 * Self.day, install: "c"),
        ])
        #expect(report.rows == .ratio(numerator: 2, denominator: 3))
    }

    @Test("time to first flow is the lower median over the cohort's first saves")
    func timeToFirstFlow() throws {
        let t = Self.base + 3_600_000
        var events: [FixtureEvent] = []
        for (index, gap) in [3_000, 1_000, 2_000, 4_000].enumerated() {
            events.append(FixtureEvent(id: UInt8(3 * index + 1), name: "app_open", timeMs: t, install: "i\(index)"))
            events.append(FixtureEvent(id: UInt8(3 * index + 2), name: "flow_saved_success", timeMs: t + Int64(gap), install: "i\(index)"))
            events.append(FixtureEvent(id: UInt8(3 * index + 3), name: "flow_saved_success", timeMs: t + Int64(gap) + 100, install: "i\(index)"))
        }
        let report = try run("time_to_first_flow", events)
        #expect(report.rows == .median(milliseconds: 2_000, actors: 4))
        #expect(report.value == 2)
    }

    @Test("open-to-import ties the import to the opened link by share_link_id, within 7 days")
    func openToImport() throws {
        let t = Self.base + 3_600_000
        let report = try run("share_link_open_to_import_rate", [
            FixtureEvent(id: 1, name: "share_link_opened", timeMs: t, install: "a", properties: ["share_link_id": "\"L1\""]),
            FixtureEvent(id: 2, name: "import_received", timeMs: t + 1_000, install: "a", properties: ["share_link_id": "\"L1\""]),
            FixtureEvent(id: 3, name: "share_link_opened", timeMs: t, install: "a", properties: ["share_link_id": "\"L2\""]),
            FixtureEvent(id: 4, name: "share_link_opened", timeMs: t, install: "b", properties: ["share_link_id": "\"L3\""]),
            FixtureEvent(id: 5, name: "import_received", timeMs: t + 7 * Self.day + 1, install: "b", properties: ["share_link_id": "\"L3\""]),
        ])
        #expect(report.rows == .ratio(numerator: 1, denominator: 3))
    }

    @Test("crash-free sessions and good-fps sessions count sessions, not events")
    func sessions() throws {
        let t = Self.base + 3_600_000
        let crash = try run("crash_free_sessions", [
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a", session: "s1"),
            FixtureEvent(id: 2, name: "crash_reported", timeMs: t + 1, install: "a", session: "s1"),
            FixtureEvent(id: 3, name: "app_open", timeMs: t, install: "a", session: "s2"),
            FixtureEvent(id: 4, name: "screen_viewed", timeMs: t, install: "b", session: "s3"),
        ])
        #expect(crash.rows == .ratio(numerator: 2, denominator: 3))
        let fps = try run("builder_fps_good_sessions", [
            FixtureEvent(id: 1, name: "perf_flow_builder_loaded", timeMs: t, install: "a", session: "s1", properties: ["fps_bucket": "\"good\""]),
            FixtureEvent(id: 2, name: "perf_flow_builder_loaded", timeMs: t + 1, install: "a", session: "s1", properties: ["fps_bucket": "\"good\""]),
            FixtureEvent(id: 3, name: "perf_flow_builder_loaded", timeMs: t, install: "a", session: "s2", properties: ["fps_bucket": "\"good\""]),
            FixtureEvent(id: 4, name: "perf_flow_builder_loaded", timeMs: t + 1, install: "a", session: "s2", properties: ["fps_bucket": "\"poor\""]),
            FixtureEvent(id: 5, name: "app_open", timeMs: t, install: "b", session: "s3"),
        ])
        #expect(fps.rows == .ratio(numerator: 1, denominator: 2))
    }

    @Test("practice retention needs practice in every whole week; the trailing part-week is left out")
    func practiceRetention() throws {
        let t = Self.base + 3_600_000
        let report = try run("practice_retention", [
            FixtureEvent(id: 1, name: "practice_session_started", timeMs: t, install: "a"),
            FixtureEvent(id: 2, name: "practice_session_started", timeMs: t + 7 * Self.day, install: "a"),
            FixtureEvent(id: 3, name: "practice_session_started", timeMs: t, install: "b"),
            FixtureEvent(id: 4, name: "practice_session_started", timeMs: t + 14 * Self.day, install: "c"),
        ], to: Self.base + 15 * Self.day)
        #expect(report.rows == .ratio(numerator: 1, denominator: 2))
        #expect(throws: QueryError.self) { try run("practice_retention", [], to: Self.base + 6 * Self.day) }
    }

    @Test("branches per flow reads each flow's latest save, ties broken by event_id")
    func branchesPerFlow() throws {
        let t = Self.base + 3_600_000
        func save(_ id: UInt8, _ flow: String, _ branches: Int, _ time: Int64) -> FixtureEvent {
            FixtureEvent(id: id, name: "flow_saved_success", timeMs: time, install: "a", properties: ["flow_id": "\"\(flow)\"", "branches_count": String(branches)])
        }
        let report = try run("branches_per_flow", [
            save(1, "f1", 2, t), save(2, "f1", 5, t + 1_000), save(3, "f2", 3, t), save(0x20, "f3", 4, t), save(0x10, "f3", 1, t),
        ])
        #expect(report.rows == .distribution([KPIBucket(value: 3, count: 1), KPIBucket(value: 4, count: 1), KPIBucket(value: 5, count: 1)]))
        #expect(report.numerator == 12 && report.denominator == 3)
    }

    @Test("practice minutes sum completed and interrupted seconds per practicing actor-week")
    func practiceMinutes() throws {
        let t = Self.base + 3_600_000
        let report = try run("weekly_practice_minutes_per_practicing_user", [
            FixtureEvent(id: 1, name: "practice_session_started", timeMs: t, install: "a"),
            FixtureEvent(id: 2, name: "practice_session_completed", timeMs: t + 1, install: "a", properties: ["actual_duration_seconds": "600"]),
            FixtureEvent(id: 3, name: "practice_session_interrupted", timeMs: t + 2, install: "a", properties: ["elapsed_seconds": "120"]),
            FixtureEvent(id: 4, name: "practice_session_started", timeMs: t, install: "b"),
        ])
        #expect(report.rows == .ratio(numerator: 720, denominator: 2))
        #expect(report.value == 6)
    }

    @Test("churn is cancellations among subscribers seen in the range")
    func churn() throws {
        let t = Self.base + 3_600_000
        let report = try run("monthly_churn", [
            FixtureEvent(id: 1, name: "subscription_purchased", timeMs: t, install: "a"),
            FixtureEvent(id: 2, name: "subscription_cancelled", timeMs: t + 1, install: "a"),
            FixtureEvent(id: 3, name: "app_open", timeMs: t, install: "b", userState: "pro"),
            FixtureEvent(id: 4, name: "app_open", timeMs: t, install: "c", userState: "free"),
        ])
        #expect(report.rows == .ratio(numerator: 1, denominator: 2))
    }

    /// Issue 21 §7: 30 installs, one a day, each saving a flow exactly 3 days after its first open;
    /// the data ends with the last install's open, so the last 3 saves have not happened yet. The
    /// old query counted all 30 (27/30 = 0.9); members whose 7-day window is not over are left out.
    @Test("cohort members whose window ends after the data ends are left out, and counted as left out")
    func incompleteWindowsLeftOut() throws {
        var events: [FixtureEvent] = []
        for install in 0..<30 {
            let opened = Self.base + Int64(install) * Self.day + 3_600_000
            events.append(FixtureEvent(id: UInt8(install), name: "app_open", timeMs: opened, install: "i\(install)"))
            if install + 3 < 30 {
                events.append(FixtureEvent(id: UInt8(100 + install), name: "flow_saved_success", timeMs: opened + 3 * Self.day, install: "i\(install)"))
            }
        }
        let report = try run("activation_rate_7d", events, from: Self.base, to: Self.base + 30 * Self.day)
        // Complete: installs 0…22 (their 7 days end by the last open, day 29); all 23 saved.
        #expect(report.rows == .ratio(numerator: 23, denominator: 23))
        #expect(report.leftOut == 7)
        #expect(report.value == 1.0)
        // Day-1 retention: the last two installs' day 1 (t0 + 1 d to t0 + 2 d) is not over.
        let retention = try run("retention_d1", events, from: Self.base, to: Self.base + 30 * Self.day)
        #expect(retention.leftOut == 2)
        #expect(retention.denominator == 28)
        // Measures without a window report nothing left out.
        #expect(try run("time_to_first_flow", events, from: Self.base, to: Self.base + 30 * Self.day).leftOut == nil)
    }
}

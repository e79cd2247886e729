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
        return try store.kpi(KPIQuery(kpi: kpi, fromMs: from, toMs: to))
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

    /// crash_free_sessions has fixtures of its own (CrashFreeSessionsFixtureTests).
    @Test("good-fps sessions count sessions, not events, and leave no session out")
    func sessions() throws {
        let t = Self.base + 3_600_000
        let fps = try run("builder_fps_good_sessions", [
            FixtureEvent(id: 1, name: "perf_flow_builder_loaded", timeMs: t, install: "a", session: "s1", properties: ["fps_bucket": "\"good\""]),
            FixtureEvent(id: 2, name: "perf_flow_builder_loaded", timeMs: t + 1, install: "a", session: "s1", properties: ["fps_bucket": "\"good\""]),
            FixtureEvent(id: 3, name: "perf_flow_builder_loaded", timeMs: t, install: "a", session: "s2", properties: ["fps_bucket": "\"good\""]),
            FixtureEvent(id: 4, name: "perf_flow_builder_loaded", timeMs: t + 1, install: "a", session: "s2", properties: ["fps_bucket": "\"poor\""]),
            FixtureEvent(id: 5, name: "app_open", timeMs: t, install: "b", session: "s3"),
        ])
        #expect(fps.rows == .ratio(numerator: 1, denominator: 2))
        #expect(fps.leftOut == nil)
    }

    /// Since catalog 2.0.0 the denominator is the users active in the whole weeks (an app_open);
    /// CH33KPIDefinitionFixtureTests holds the cases that tell the two definitions apart.
    @Test("practice retention needs practice in every whole week; the trailing part-week is left out")
    func practiceRetention() throws {
        let t = Self.base + 3_600_000
        let report = try run("practice_retention", [
            FixtureEvent(id: 5, name: "app_open", timeMs: t, install: "a"),
            FixtureEvent(id: 6, name: "app_open", timeMs: t, install: "b"),
            FixtureEvent(id: 7, name: "app_open", timeMs: t + 14 * Self.day, install: "c"),
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

    /// Two whole weeks from `base`: week 0 is [base, base + 7 d), week 1 the next 7 days.
    static func week(_ n: Int64, hour: Int64 = 1) -> Int64 { base + n * 7 * day + hour * 3_600_000 }

    @Test("flows edited per active user: distinct flows saved in the actor-weeks with an app_open, over those actor-weeks")
    func weeklyFlowsEdited() throws {
        func save(_ id: UInt8, _ time: Int64, _ install: String, _ flow: String) -> FixtureEvent {
            FixtureEvent(id: id, name: "flow_saved_success", timeMs: time, install: install, properties: ["flow_id": "\"\(flow)\""])
        }
        let report = try run("weekly_flows_edited_per_active_user", [
            // a: active both weeks; week 0 saves X twice and Y (2 flows), week 1 saves X (1 flow).
            FixtureEvent(id: 1, name: "app_open", timeMs: Self.week(0), install: "a"),
            save(2, Self.week(0, hour: 2), "a", "X"), save(3, Self.week(0, hour: 3), "a", "X"), save(4, Self.week(0, hour: 4), "a", "Y"),
            FixtureEvent(id: 5, name: "app_open", timeMs: Self.week(1), install: "a"),
            save(6, Self.week(1, hour: 2), "a", "X"),
            // b: active in week 0, saves nothing.
            FixtureEvent(id: 7, name: "app_open", timeMs: Self.week(0), install: "b"),
            // c: active in week 0 only; its week-1 save is outside an active actor-week.
            FixtureEvent(id: 8, name: "app_open", timeMs: Self.week(0), install: "c"),
            save(9, Self.week(1, hour: 2), "c", "Z"),
            // A save in the week after the range does not count.
            save(10, Self.week(2), "a", "Y"),
        ], from: Self.base, to: Self.base + 14 * Self.day)
        // Active actor-weeks: a·0, a·1, b·0, c·0 = 4; distinct flows in them: 2 + 1 = 3.
        #expect(report.rows == .ratio(numerator: 3, denominator: 4))
        #expect(report.value == 0.75)
    }

    @Test("paywall view rate: active actor-weeks with a paywall_viewed, over active actor-weeks")
    func paywallViewRate() throws {
        let paywall = ["paywall_id": "\"practice\"", "entry_point": "\"settings\""]
        let report = try run("paywall_view_rate", [
            FixtureEvent(id: 1, name: "app_open", timeMs: Self.week(0), install: "a"),
            FixtureEvent(id: 2, name: "paywall_viewed", timeMs: Self.week(0, hour: 2), install: "a", properties: paywall),
            FixtureEvent(id: 3, name: "app_open", timeMs: Self.week(1), install: "a"),
            // b views the paywall in week 1 without an app_open that week: not an active actor-week.
            FixtureEvent(id: 4, name: "app_open", timeMs: Self.week(0), install: "b"),
            FixtureEvent(id: 5, name: "paywall_viewed", timeMs: Self.week(1, hour: 2), install: "b", properties: paywall),
            // c: two views in its one active week count once.
            FixtureEvent(id: 6, name: "app_open", timeMs: Self.week(1), install: "c"),
            FixtureEvent(id: 7, name: "paywall_viewed", timeMs: Self.week(1, hour: 2), install: "c", properties: paywall),
            FixtureEvent(id: 8, name: "paywall_viewed", timeMs: Self.week(1, hour: 3), install: "c", properties: paywall),
            // At `to` exactly: outside the range.
            FixtureEvent(id: 9, name: "paywall_viewed", timeMs: Self.base + 14 * Self.day, install: "a", properties: paywall),
        ], from: Self.base, to: Self.base + 14 * Self.day)
        // Active actor-weeks: a·0, a·1, b·0, c·1 = 4; with a view: a·0, c·1 = 2.
        #expect(report.rows == .ratio(numerator: 2, denominator: 4))
    }

    @Test("share link create rate: share_link_created events in the range, over actors active in it")
    func shareLinkCreateRate() throws {
        func created(_ id: UInt8, _ time: Int64, _ install: String) -> FixtureEvent {
            FixtureEvent(id: id, name: "share_link_created", timeMs: time, install: install,
                         properties: ["share_link_id": "\"L\(id)\"", "flow_id": "\"F\"", "expires_in_days": "7"])
        }
        let t = Self.base + 3_600_000
        let report = try run("share_link_create_rate", [
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a"),
            created(2, t + 1, "a"), created(3, t + 2, "a"),
            FixtureEvent(id: 4, name: "app_open", timeMs: t, install: "b"),
            // c creates a link without an app_open in the range: its event counts, it is not active.
            created(5, t + 3, "c"),
            // At `to` exactly, and before `from`: outside the range.
            created(6, Self.base + 7 * Self.day, "a"),
            FixtureEvent(id: 7, name: "app_open", timeMs: Self.base - 1, install: "e"), created(8, Self.base - 1, "e"),
        ])
        // Events: 2 (a) + 1 (c) = 3; active actors: a, b = 2.
        #expect(report.rows == .ratio(numerator: 3, denominator: 2))
        #expect(report.value == 1.5)
    }
}

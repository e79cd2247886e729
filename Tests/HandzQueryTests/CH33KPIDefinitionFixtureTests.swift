import HandzAnalysis
import HandzAnalyticsCore
import HandzQuery
import HandzSQLite
import HandzTestSupport
import Testing

/// Hand-computed fixtures for the KPIs of issue 32 §7 (CH33 §5.2): practice retention over active
/// users, and the three that had none — trial start rate, trial-to-paid conversion and
/// import-to-saved conversion. Each fixture runs on every path the project computes a KPI by: the
/// column engine (`handz-analytics kpi`), the embedded store's analysis on the log (`--via sqlite`),
/// and the builder's SQLite SQL as `sql kpi --dialect sqlite` prints
/// it, run as it is on the store file. The other dialects run the same builder's SQL in the
/// engine-agreement check, which compares them with `kpi --format json`.
@Suite struct CH33KPIDefinitionFixtureTests {
    static let base = KPIFixtureTests.base
    static let day = KPIFixtureTests.day
    static let hour: Int64 = 3_600_000

    /// (numerator, denominator) on every path; fails when two paths differ.
    func ratio(_ id: String, _ events: [FixtureEvent], from: Int64 = base, to: Int64 = base + 7 * day,
               sourceLocation: SourceLocation = #_sourceLocation) throws -> [Int64] {
        let kpi = try #require(RepositoryCatalog.catalog.kpis.first { $0.id == id })
        let query = KPIQuery(kpi: kpi, fromMs: from, toMs: to)
        let store = try FixtureStore(events)
        defer { store.remove() }
        func pair(_ report: KPIReport) -> [Int64] {
            guard case .ratio(let numerator, let denominator) = report.rows else { return [] }
            return [numerator, denominator]
        }
        let layer = pair(try store.kpi(query))
        let log = pair(try StoreAnalysis(path: store.path, catalog: RepositoryCatalog.catalog).kpi(query))
        let sql = try KPISQLBuilder(catalog: RepositoryCatalog.catalog, dialect: .sqlite).sql(query)
        let printed = try SQLiteDatabase(path: store.path, readOnly: true).prepare(sql).query { [$0.int64(0), $0.int64(1)] }.first ?? []
        #expect(log == layer, "log and layer", sourceLocation: sourceLocation)
        #expect(printed == layer, "printed SQL and layer", sourceLocation: sourceLocation)
        return layer
    }

    func event(_ id: UInt8, _ name: String, _ timeMs: Int64, _ install: String, _ properties: [String: String] = [:]) -> FixtureEvent {
        FixtureEvent(id: id, name: name, timeMs: timeMs, install: install, properties: properties)
    }

    /// Until catalog 2.0.0 the denominator was the actors who practised at least once (here a, b,
    /// d, f: 2/4); §5.2 says "% users", so it is the active users (here 1/4).
    @Test("practice retention: active users who practised in every whole week, over the users active in those weeks")
    func practiceRetention() throws {
        let (w0, w1) = (Self.base + Self.hour, Self.base + 7 * Self.day + Self.hour)
        let trailing = Self.base + 14 * Self.day + Self.hour
        let rate = try ratio("practice_retention", [
            // a: active, practises in week 0 and week 1.
            event(1, "app_open", w0, "a"), event(2, "practice_session_started", w0 + 1, "a"), event(3, "practice_session_started", w1, "a"),
            // b: active, practises in week 0 only.
            event(4, "app_open", w0, "b"), event(5, "practice_session_started", w0 + 1, "b"),
            // c: active in week 1, never practises (the old denominator left c out).
            event(6, "app_open", w1, "c"),
            // d: practises both weeks, but its app_open is before `from`: not an active user of the range.
            event(7, "app_open", Self.base - Self.hour, "d"), event(8, "practice_session_started", w0, "d"), event(9, "practice_session_started", w1, "d"),
            // e: active and practising only in the trailing part-week, which is left out.
            event(10, "app_open", trailing, "e"), event(11, "practice_session_started", trailing + 1, "e"),
            // f: active in week 0, practises in week 0 and in the trailing part-week, not in week 1.
            event(12, "app_open", w0, "f"), event(13, "practice_session_started", w0 + 1, "f"), event(14, "practice_session_started", trailing, "f"),
        ], to: Self.base + 15 * Self.day)
        // Whole weeks: [base, base + 7 d) and [base + 7 d, base + 14 d); day 14 is a part-week.
        // Active (app_open in a whole week): a, b, c, f = 4. Practised in both weeks: a (d is not active) = 1.
        #expect(rate == [1, 4])
    }

    @Test("trial start rate: actors whose first paywall view in the range is followed by a trial within 7 days, inclusive")
    func trialStartRate() throws {
        let t = Self.base + Self.hour
        let rate = try ratio("trial_start_rate", [
            // a: the trial exactly 604,800 s after the view: counts (inclusive).
            event(1, "paywall_viewed", t, "a"), event(2, "trial_started", t + 7 * Self.day, "a"),
            // b: one millisecond later than that: does not.
            event(3, "paywall_viewed", t, "b"), event(4, "trial_started", t + 7 * Self.day + 1, "b"),
            // c: the window runs from the first view in the range, not the second.
            event(5, "paywall_viewed", t, "c"), event(6, "paywall_viewed", t + 2 * Self.day, "c"),
            event(7, "trial_started", t + 8 * Self.day, "c"),
            // d: a trial before the view does not follow it.
            event(8, "trial_started", t, "d"), event(9, "paywall_viewed", t + Self.hour, "d"),
            // e: viewed before `from` only: not in the denominator.
            event(10, "paywall_viewed", Self.base - Self.hour, "e"), event(11, "trial_started", t, "e"),
            // f: the trial at the view's own millisecond counts (at or after), whatever the event_id order.
            event(13, "paywall_viewed", t + 2 * Self.hour, "f"), event(12, "trial_started", t + 2 * Self.hour, "f"),
        ])
        // Denominator: a, b, c, d, f = 5. Numerator: a, f = 2.
        #expect(rate == [2, 5])
    }

    @Test("trial-to-paid: actors whose first trial in the range is followed by a purchase within 8 days, even after `to`")
    func trialToPaid() throws {
        let t = Self.base + Self.hour
        let rate = try ratio("trial_to_paid_conversion", [
            // a: purchase exactly 691,200 s (7-day trial + 1 day for billing) after the trial: counts.
            event(1, "trial_started", t, "a"), event(2, "subscription_purchased", t + 8 * Self.day, "a"),
            // b: one millisecond later: does not.
            event(3, "trial_started", t, "b"), event(4, "subscription_purchased", t + 8 * Self.day + 1, "b"),
            // c: a trial on day 6, purchased on day 9, after `to` (day 7): counts.
            event(5, "trial_started", Self.base + 6 * Self.day, "c"), event(6, "subscription_purchased", Self.base + 9 * Self.day, "c"),
            // d: a trial at `to` exactly is outside [from, to).
            event(7, "trial_started", Self.base + 7 * Self.day, "d"), event(8, "subscription_purchased", Self.base + 7 * Self.day + 1, "d"),
            // e: subscribed without a trial: not in the denominator.
            event(9, "subscription_purchased", t, "e"),
        ])
        // Denominator: a, b, c = 3. Numerator: a, c = 2.
        #expect(rate == [2, 3])
    }

    @Test("import-to-saved: (receiver, import_id) pairs received in the range and saved by the same receiver within 7 days")
    func importToSaved() throws {
        let t = Self.base + Self.hour
        func received(_ id: UInt8, _ time: Int64, _ install: String, _ importID: String) -> FixtureEvent {
            event(id, "import_received", time, install, ["import_id": "\"\(importID)\"", "share_link_id": "\"L\""])
        }
        func saved(_ id: UInt8, _ time: Int64, _ install: String, _ importID: String) -> FixtureEvent {
            event(id, "import_saved_to_library_success", time, install, ["import_id": "\"\(importID)\"", "new_flow_id": "\"W\(id)\""])
        }
        let rate = try ratio("import_to_saved_rate", [
            // a: M1 received and saved: counts. M2 received; the save is of M3 (not received in the range): M2 does not count.
            received(1, t, "a", "M1"), saved(2, t + Self.hour, "a", "M1"),
            received(3, t, "a", "M2"), saved(4, t + Self.hour, "a", "M3"),
            // b: M4 saved one millisecond after 7 days: does not count; M5 saved by another install: does not count for b.
            received(5, t, "b", "M4"), saved(6, t + 7 * Self.day + 1, "b", "M4"),
            received(7, t, "b", "M5"), saved(8, t + Self.hour, "g", "M5"),
            // c: M6 saved exactly 7 days later: counts; M7 received on day 6 and saved on day 8, after `to`: counts.
            received(9, t, "c", "M6"), saved(10, t + 7 * Self.day, "c", "M6"),
            received(11, Self.base + 6 * Self.day, "c", "M7"), saved(12, Self.base + 8 * Self.day, "c", "M7"),
            // c: M8 received twice; one pair, saved a day after the first receipt: counts once.
            received(13, t, "c", "M8"), received(14, t + Self.hour, "c", "M8"), saved(15, t + Self.day, "c", "M8"),
        ])
        // Pairs: a·M1, a·M2, b·M4, b·M5, c·M6, c·M7, c·M8 = 7. Saved in time: a·M1, c·M6, c·M7, c·M8 = 4.
        #expect(rate == [4, 7])
    }
}

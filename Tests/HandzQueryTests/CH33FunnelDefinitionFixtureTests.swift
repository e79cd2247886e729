import HandzAnalysis
import HandzAnalyticsCore
import HandzQuery
import HandzTestSupport
import Testing

/// Hand-computed fixtures for the funnel definitions of issue 32 §7 (CH33 §5.1): F4's steps are of
/// one plan, and F2's success is a flow the receiver creates, not a re-save of an older one. Each
/// runs on every path a funnel is computed by on the embedded store — the chain walk and the
/// printed SQLite SQL on the log, and the column engine — and through the reference loops.
@Suite struct CH33FunnelDefinitionFixtureTests {
    static let second: Int64 = 1_000
    static let base = FunnelAcrossPeopleTests.base
    static let catalog = RepositoryCatalog.catalog

    func check(_ events: [FixtureEvent], _ funnel: String, _ expected: [FunnelKey: FunnelValue], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let definition = try #require(Self.catalog.funnels.first { $0.id == funnel })
        let query = FunnelQuery(funnel: definition, fromMs: Self.base - 3_600_000, toMs: Self.base + 86_400_000)
        let store = try FixtureStore(events)
        defer { store.remove() }
        // The layer: chain walk and SQL (FixtureStore.funnel holds the two together).
        #expect(try store.funnel(query) == expected, "layer", sourceLocation: sourceLocation)
        let log = try StoreAnalysis(path: store.path, catalog: Self.catalog)
        #expect(FunnelKey.table(try log.funnel(query)) == expected, "log, chain walk", sourceLocation: sourceLocation)
        #expect(FunnelKey.table(try log.funnelBySQL(query)) == expected, "log, SQL", sourceLocation: sourceLocation)
        #expect(ReferenceFunnel.run(events, query) == expected, "reference", sourceLocation: sourceLocation)
    }

    static func key(_ step: Int) -> FunnelKey { FunnelKey(bucket: nil, step: step) }
    static func value(_ actors: Int64, _ median: Int64? = nil, links: Int64 = 0) -> FunnelValue {
        FunnelValue(actors: actors, medianMs: median, links: links)
    }

    static func created(_ id: UInt8, _ time: Int64, _ install: String, plan: String) -> FixtureEvent {
        FixtureEvent(id: id, name: "mastery_plan_created", timeMs: time, install: install, properties: ["mastery_plan_id": "\"\(plan)\""])
    }

    static func scheduled(_ id: UInt8, _ time: Int64, _ install: String, plan: String) -> FixtureEvent {
        FixtureEvent(id: id, name: "mastery_schedule_saved", timeMs: time, install: install, properties: ["mastery_plan_id": "\"\(plan)\""])
    }

    static func practice(_ id: UInt8, _ time: Int64, _ install: String, target: String, type: String = "mastery_plan") -> FixtureEvent {
        FixtureEvent(id: id, name: "practice_session_started", timeMs: time, install: install,
                     properties: ["target_type": "\"\(type)\"", "target_id": "\"\(target)\""])
    }

    static func maintenance(_ id: UInt8, _ time: Int64, _ install: String) -> FixtureEvent {
        FixtureEvent(id: id, name: "maintenance_session_completed", timeMs: time, install: install, properties: ["maintenance_plan_id": "\"X\""])
    }

    /// Before catalog 2.0.0 the steps were any plan's: a's plan P1, P2's schedule and P1's
    /// practice made a chain of 3 with a success (3 actors at step 3, 2 successes).
    @Test("F4: every step is of the plan step 1 created; the success is the install's maintenance after that practice")
    func f4OnePlan() throws {
        let t = Self.base, s = Self.second
        try check([
            // a: creates P1 and P2, schedules P2, practises P1, then maintenance. P1's chain: 1
            // step (no schedule of P1); P2's: 2 steps (no practice of P2) — the reported one.
            Self.created(1, t, "a", plan: "P1"), Self.created(2, t + 10 * s, "a", plan: "P2"),
            Self.scheduled(3, t + 20 * s, "a", plan: "P2"), Self.practice(4, t + 30 * s, "a", target: "P1"),
            Self.maintenance(5, t + 40 * s, "a"),
            // b: one plan through every step (5 s, 10 s), maintenance 10 s after the practice: success.
            Self.created(6, t, "b", plan: "P3"), Self.scheduled(7, t + 5 * s, "b", plan: "P3"),
            Self.practice(8, t + 15 * s, "b", target: "P3"), Self.maintenance(9, t + 25 * s, "b"),
            // c: practice of a flow that happens to carry the plan's id is not step 3 (target_type);
            // the plan's own practice 3 s after the schedule is. No maintenance: no success.
            Self.created(10, t, "c", plan: "P4"), Self.scheduled(11, t + 5 * s, "c", plan: "P4"),
            Self.practice(12, t + 6 * s, "c", target: "P4", type: "flow"), Self.practice(13, t + 8 * s, "c", target: "P4"),
            // d: the plan's practice comes after the 14-day window: 2 steps.
            Self.created(14, t, "d", plan: "P5"), Self.scheduled(15, t + 5 * s, "d", plan: "P5"),
            Self.practice(16, t + 14 * 86_400_000 + 1, "d", target: "P5"),
        ], "F4", [
            // Step 1: a, b, c, d. Step 2: a 10 s (P2), b 5 s, c 5 s, d 5 s → lower median of [5, 5, 5, 10] = 5 s.
            Self.key(1): Self.value(4), Self.key(2): Self.value(4, 5 * s),
            // Step 3: b 10 s, c 3 s → lower median of [3, 10] = 3 s. Success: b, 10 s after its practice.
            Self.key(3): Self.value(2, 3 * s), Self.key(4): Self.value(1, 10 * s),
        ])
    }

    /// Before catalog 2.0.0 any save of a flow other than the imported one counted: b's re-save of
    /// W1 and e's second save of W3 too (3 successes).
    @Test("F2: the success is the first save of a flow (over all stored data), after the import's save and other than the imported flow")
    func f2CreatesTheirOwn() throws {
        let t = Self.base, s = Self.second
        typealias F = FunnelAcrossPeopleTests
        var events = F.sender("a", link: "L1", at: t, ids: (1, 2))
        for (install, ids) in [("b", UInt8(10)), ("c", 20), ("e", 30)] {
            events += [F.opened(install, link: "L1", at: t + 10 * s, id: ids),
                       F.received(install, link: "L1", importID: "M\(install)", at: t + 20 * s, id: ids + 1),
                       F.saved(install, importID: "M\(install)", newFlow: "N\(install)", at: t + 30 * s, id: ids + 2)]
        }
        events += [
            // b: saved W1 two days before the range (read for first_by only); its save after the import is a re-save.
            F.ownFlow("b", flow: "W1", at: t - 2 * 86_400_000, id: 15), F.ownFlow("b", flow: "W1", at: t + 40 * s, id: 16),
            // c: W2's first save 20 s after the import's save: success; its second save changes nothing.
            F.ownFlow("c", flow: "W2", at: t + 50 * s, id: 25), F.ownFlow("c", flow: "W2", at: t + 60 * s, id: 26),
            // e: W3 first saved before the import's save (not after step 5), then re-saved after it: no success.
            F.ownFlow("e", flow: "W3", at: t + 25 * s, id: 35), F.ownFlow("e", flow: "W3", at: t + 45 * s, id: 36),
            // c's first save of the imported flow itself is not their own either.
            F.ownFlow("c", flow: "Nc", at: t + 35 * s, id: 27),
        ]
        try check(events, "F2", [
            Self.key(1): Self.value(1), Self.key(2): Self.value(1, s, links: 1),
            // Receptions b, c, e: opened 9 s after the link, received 10 s later, saved 10 s later.
            Self.key(3): Self.value(3, 9 * s, links: 1), Self.key(4): Self.value(3, 10 * s, links: 1),
            Self.key(5): Self.value(3, 10 * s, links: 1),
            // Success: c only, W2 20 s after its step 5.
            Self.key(6): Self.value(1, 20 * s, links: 1),
        ])
    }
}

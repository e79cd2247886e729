import HandzAnalyticsCore
import HandzQuery
import Testing

/// Hand-computed fixtures for every rule of the funnel semantics (HandzQuery docs, "Funnel semantics"),
/// run through the SQLite SQL on a real store file and through the reference loops.
@Suite struct FunnelFixtureTests {
    static let hour: Int64 = 3_600_000
    static let base: Int64 = 1_772_323_200_000  // 2026-03-01T00:00:00Z
    let threeSteps = fixtureFunnel([["app_open"], ["onboarding_viewed"], ["flow_saved_success"]])

    func check(_ events: [FixtureEvent], _ query: FunnelQuery, _ expected: [FunnelKey: FunnelValue],
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = try FixtureStore(events)
        defer { store.remove() }
        let sql = try store.funnel(query)
        #expect(sql == expected, "SQL", sourceLocation: sourceLocation)
        #expect(ReferenceFunnel.run(events, query) == expected, "reference", sourceLocation: sourceLocation)
    }

    func query(_ funnel: FunnelDefinition? = nil, from: Int64 = base, to: Int64 = base + 24 * hour, window: Int64? = nil,
               actor: ActorKind = .install, breakdown: String? = nil) -> FunnelQuery {
        FunnelQuery(funnel: funnel ?? threeSteps, fromMs: from, toMs: to, windowMs: window, actor: actor, breakdown: breakdown)
    }

    static func key(_ step: Int, _ bucket: String?? = nil) -> FunnelKey { FunnelKey(bucket: bucket, step: step) }
    static func value(_ actors: Int64, _ median: Int64? = nil) -> FunnelValue { FunnelValue(actors: actors, medianMs: median) }

    @Test("a step at the same millisecond counts only when its event_id sorts after the previous step's")
    func sameTimestampTies() throws {
        let t = Self.base + Self.hour
        let events = [
            // a: onboarding shares the entry's millisecond but sorts before it → not after step 1.
            FixtureEvent(id: 0x20, name: "app_open", timeMs: t, install: "a"),
            FixtureEvent(id: 0x10, name: "onboarding_viewed", timeMs: t, install: "a"),
            // b: same millisecond, sorts after → step 2 with 0 ms between.
            FixtureEvent(id: 0x30, name: "app_open", timeMs: t, install: "b"),
            FixtureEvent(id: 0x40, name: "onboarding_viewed", timeMs: t, install: "b"),
        ]
        try check(events, query(), [Self.key(1): Self.value(2), Self.key(2): Self.value(1, 0)])
    }

    @Test("the window is inclusive: a step exactly at entry + window counts, one millisecond later does not")
    func windowBoundary() throws {
        let t = Self.base + Self.hour
        let events = [
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a"),
            FixtureEvent(id: 2, name: "onboarding_viewed", timeMs: t + Self.hour, install: "a"),
            FixtureEvent(id: 3, name: "app_open", timeMs: t, install: "b"),
            FixtureEvent(id: 4, name: "onboarding_viewed", timeMs: t + Self.hour + 1, install: "b"),
        ]
        try check(events, query(window: Self.hour), [Self.key(1): Self.value(2), Self.key(2): Self.value(1, Self.hour)])
    }

    @Test("the window counts from the entry, not from the previous step")
    func windowFromEntry() throws {
        let t = Self.base + Self.hour
        let events = [
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a"),
            FixtureEvent(id: 2, name: "onboarding_viewed", timeMs: t + 50 * 60_000, install: "a"),
            FixtureEvent(id: 3, name: "flow_saved_success", timeMs: t + 61 * 60_000, install: "a"),
        ]
        try check(events, query(window: Self.hour), [Self.key(1): Self.value(1), Self.key(2): Self.value(1, 50 * 60_000)])
    }

    @Test("repeated step-1 events are all entries: the best level wins, the earliest such entry is reported")
    func repeatedEntries() throws {
        let t = Self.base + Self.hour
        let events = [
            // Entry at t reaches step 2 (10 min later); entry at t+5m reaches step 2 too: the
            // earliest is reported, so the median is 10 minutes, not 5.
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a"),
            FixtureEvent(id: 2, name: "app_open", timeMs: t + 5 * 60_000, install: "a"),
            FixtureEvent(id: 3, name: "onboarding_viewed", timeMs: t + 10 * 60_000, install: "a"),
            // b: the first entry's window misses the save; the later entry reaches step 3.
            FixtureEvent(id: 4, name: "app_open", timeMs: t, install: "b"),
            FixtureEvent(id: 5, name: "onboarding_viewed", timeMs: t + 1_000, install: "b"),
            FixtureEvent(id: 6, name: "app_open", timeMs: t + 2 * Self.hour, install: "b"),
            FixtureEvent(id: 7, name: "onboarding_viewed", timeMs: t + 2 * Self.hour + 2_000, install: "b"),
            FixtureEvent(id: 8, name: "flow_saved_success", timeMs: t + 2 * Self.hour + 9_000, install: "b"),
        ]
        try check(events, query(window: Self.hour), [
            Self.key(1): Self.value(2), Self.key(2): Self.value(2, 2_000), Self.key(3): Self.value(1, 7_000),
        ])
    }

    @Test("one event never fills two steps of a funnel that repeats an event")
    func oneEventOneStep() throws {
        let twice = fixtureFunnel([["app_open"], ["app_open"]])
        let t = Self.base + Self.hour
        let events = [
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a"),
            FixtureEvent(id: 2, name: "app_open", timeMs: t, install: "b"),
            FixtureEvent(id: 3, name: "app_open", timeMs: t + 60_000, install: "b"),
        ]
        try check(events, query(twice), [Self.key(1): Self.value(2), Self.key(2): Self.value(1, 60_000)])
    }

    @Test("an entry before `from` is no entry, even when its later steps fall inside the range")
    func entryBeforeFrom() throws {
        let events = [
            FixtureEvent(id: 1, name: "app_open", timeMs: Self.base - 1, install: "a"),
            FixtureEvent(id: 2, name: "onboarding_viewed", timeMs: Self.base + 1_000, install: "a"),
            FixtureEvent(id: 3, name: "app_open", timeMs: Self.base, install: "b"),
        ]
        try check(events, query(), [Self.key(1): Self.value(1)])
    }

    @Test("a step after `to` counts when it is inside the window; an entry at `to` does not")
    func stepAfterTo() throws {
        let to = Self.base + 24 * Self.hour
        let events = [
            FixtureEvent(id: 1, name: "app_open", timeMs: to - 1_000, install: "a"),
            FixtureEvent(id: 2, name: "onboarding_viewed", timeMs: to + 30 * 60_000, install: "a"),
            FixtureEvent(id: 3, name: "app_open", timeMs: to, install: "b"),
        ]
        try check(events, query(to: to), [Self.key(1): Self.value(1), Self.key(2): Self.value(1, 30 * 60_000 + 1_000)])
    }

    @Test("a guest who signs up mid-funnel stays one actor; --actor user joins the user's installs")
    func guestConverting() throws {
        let t = Self.base + Self.hour
        let events = [
            // Install g: a guest, then signs up as user U; install h is U's second device.
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "g", userState: "guest"),
            FixtureEvent(id: 2, name: "onboarding_viewed", timeMs: t + 1_000, install: "g", userState: "guest"),
            FixtureEvent(id: 3, name: "onboarding_viewed", timeMs: t + 2_000, install: "g", user: "U"),
            FixtureEvent(id: 4, name: "flow_saved_success", timeMs: t + 3_000, install: "h", user: "U"),
        ]
        try check(events, query(), [Self.key(1): Self.value(1), Self.key(2): Self.value(1, 1_000)])
        try check(events, query(actor: .user), [
            Self.key(1): Self.value(1), Self.key(2): Self.value(1, 1_000), Self.key(3): Self.value(1, 2_000),
        ])
    }

    @Test("breakdowns take the entry event's value and keep an explicit null bucket")
    func breakdownNulls() throws {
        let t = Self.base + Self.hour
        let events = [
            FixtureEvent(id: 1, name: "app_open", timeMs: t, install: "a", properties: ["start_type": "\"cold\""]),
            FixtureEvent(id: 2, name: "onboarding_viewed", timeMs: t + 1_000, install: "a"),
            FixtureEvent(id: 3, name: "app_open", timeMs: t, install: "b"),
            FixtureEvent(id: 4, name: "app_open", timeMs: t, install: "c", properties: ["start_type": "\"warm\""]),
            FixtureEvent(id: 5, name: "onboarding_viewed", timeMs: t + 4_000, install: "c", properties: ["start_type": "\"cold\""]),
        ]
        try check(events, query(breakdown: "start_type"), [
            Self.key(1): Self.value(3), Self.key(2): Self.value(2, 1_000),
            Self.key(1, .some("cold")): Self.value(1), Self.key(2, .some("cold")): Self.value(1, 1_000),
            Self.key(1, .some("warm")): Self.value(1), Self.key(2, .some("warm")): Self.value(1, 4_000),
            Self.key(1, .some(nil)): Self.value(1),
        ])
    }

    @Test("alternatives and property filters: any listed event matches, every filter must hold")
    func alternativesAndFilters() throws {
        let funnel = fixtureFunnel([["guest_mode_entered"], ["gate_result"], ["signup_viewed", "signup_success"]],
                                   filters: [2: [PropertyFilter(property: "result", values: ["blocked"]), PropertyFilter(property: "user_state", values: ["guest"])]])
        let t = Self.base + Self.hour
        let events = [
            FixtureEvent(id: 1, name: "guest_mode_entered", timeMs: t, install: "a", userState: "guest"),
            FixtureEvent(id: 2, name: "gate_result", timeMs: t + 1_000, install: "a", userState: "guest", properties: ["result": "\"allowed\""]),
            FixtureEvent(id: 3, name: "gate_result", timeMs: t + 2_000, install: "a", userState: "free", properties: ["result": "\"blocked\""]),
            FixtureEvent(id: 4, name: "gate_result", timeMs: t + 3_000, install: "a", userState: "guest", properties: ["result": "\"blocked\""]),
            FixtureEvent(id: 5, name: "signup_success", timeMs: t + 4_000, install: "a", userState: "guest"),
        ]
        try check(events, query(funnel), [Self.key(1): Self.value(1), Self.key(2): Self.value(1, 3_000), Self.key(3): Self.value(1, 1_000)])
    }

    @Test("the median is the lower median of integer milliseconds")
    func lowerMedian() throws {
        let t = Self.base + Self.hour
        var events: [FixtureEvent] = []
        for (index, gap) in [4_000, 1_000, 3_000, 2_000].enumerated() {
            events.append(FixtureEvent(id: UInt8(2 * index + 1), name: "app_open", timeMs: t, install: "i\(index)"))
            events.append(FixtureEvent(id: UInt8(2 * index + 2), name: "onboarding_viewed", timeMs: t + Int64(gap), install: "i\(index)"))
        }
        try check(events, query(), [Self.key(1): Self.value(4), Self.key(2): Self.value(4, 2_000)])
        #expect(Median.lower([5, 1, 3]) == 3)
        #expect(Median.lower([]) == nil)
    }
}

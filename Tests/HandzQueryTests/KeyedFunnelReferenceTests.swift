import HandzAnalyticsCore
import HandzQuery
import HandzSynthetic
import HandzTestSupport
import Testing

/// Keyed single-actor funnels (F4: every step of one plan, ``FunnelDefinition/chainKey``): the
/// chain walk and the SQLite SQL against the reference loops on random histories where installs
/// create, schedule and practise several plans interleaved, with ties and repeats.
@Suite struct KeyedFunnelReferenceTests {
    static let base = FunnelReferenceTests.base

    static func masteryEvents(seed: UInt64) -> [FixtureEvent] {
        var random = SeededRandom(seed: seed)
        let names = ["mastery_plan_created", "mastery_schedule_saved", "mastery_schedule_saved", "practice_session_started",
                     "practice_session_started", "maintenance_session_completed", "app_open"]
        var events: [FixtureEvent] = []
        var usedIDs = Set<UInt8>()
        for _ in 0..<Int(random.int(in: 30...160)) {
            let id = FunnelReferenceTests.unusedID(&usedIDs, &random)
            let time = base + random.int(in: -1...14) * 600_000
            var event = FixtureEvent(id: id, name: random.pick(names), timeMs: time, install: "i\(random.int(in: 0...3))")
            event.user = random.chance(0.3) ? "u\(random.int(in: 0...2))" : nil
            event.networkState = random.pick(["online", "offline"])
            let plan = "\"P\(random.int(in: 1...3))\""
            switch event.name {
            case "mastery_plan_created", "mastery_schedule_saved": event.properties["mastery_plan_id"] = plan
            case "practice_session_started":
                event.properties = ["target_type": random.pick(["\"mastery_plan\"", "\"mastery_plan\"", "\"flow\""]), "target_id": plan]
            case "maintenance_session_completed": event.properties["maintenance_plan_id"] = "\"X\""
            default: break
            }
            events.append(event)
        }
        return events
    }

    @Test("F4 (keyed by the plan): the walk, the SQL and the reference agree", arguments: 1...24)
    func agree(seed: UInt64) throws {
        let events = Self.masteryEvents(seed: seed)
        let store = try FixtureStore(events)
        defer { store.remove() }
        var random = SeededRandom(seed: seed ^ 0xF4)
        let f4 = try #require(RepositoryCatalog.catalog.funnels.first { $0.id == "F4" })
        #expect(f4.chainKey?.map(\.property) == ["mastery_plan_id", "mastery_plan_id", "target_id"])
        for _ in 0..<3 {
            let query = FunnelReferenceTests.randomQuery(f4, breakdowns: [nil, "network_state"], &random)
            #expect(try store.funnel(query) == ReferenceFunnel.run(events, query), "seed \(seed) \(query.actor) \(query.breakdown ?? "-")")
        }
    }
}

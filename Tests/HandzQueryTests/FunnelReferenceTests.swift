import HandzAnalyticsCore
import HandzQuery
import HandzSynthetic
import HandzTestSupport
import Testing

/// The SQLite SQL against the reference loops on random datasets full of ties, repeats,
/// interleaved installs and users, and filters — every parameter combination.
@Suite struct FunnelReferenceTests {
    static let base: Int64 = 1_772_323_200_000

    /// A one-byte event id not used yet in this dataset (the tie-break order stays total).
    static func unusedID(_ used: inout Set<UInt8>, _ random: inout SeededRandom) -> UInt8 {
        var id: UInt8
        repeat { id = UInt8(random.int(in: 0...255)) } while used.contains(id)
        used.insert(id)
        return id
    }

    static func randomEvents(seed: UInt64) -> [FixtureEvent] {
        var random = SeededRandom(seed: seed)
        let names = ["app_open", "onboarding_viewed", "flow_builder_opened", "library_viewed", "flow_draft_created", "flow_saved_success",
                     "guest_mode_entered", "gate_result", "signup_viewed", "signup_success"]
        var events: [FixtureEvent] = []
        var usedIDs = Set<UInt8>()
        for _ in 0..<Int(random.int(in: 30...200)) {
            let id = Self.unusedID(&usedIDs, &random)
            if usedIDs.count >= 255 { break }
            let install = "i\(random.int(in: 0...5))"
            // Times on a coarse grid so ties are common; some before `from`.
            let time = base + random.int(in: -3...40) * 600_000
            var event = FixtureEvent(id: id, name: random.pick(names), timeMs: time, install: install)
            event.user = random.chance(0.3) ? "u\(random.int(in: 0...2))" : nil
            event.userState = random.pick(["guest", "free"])
            event.networkState = random.pick(["online", "offline"])
            if event.name == "gate_result" { event.properties["result"] = random.pick(["\"blocked\"", "\"allowed\""]) }
            if event.name == "app_open", random.chance(0.7) { event.properties["start_type"] = random.pick(["\"cold\"", "\"warm\""]) }
            events.append(event)
        }
        return events
    }

    /// A run of `funnel` over a random range (some of it before the data), window, actor and
    /// breakdown.
    static func randomQuery(_ funnel: FunnelDefinition, breakdowns: [String?], _ random: inout SeededRandom) -> FunnelQuery {
        let from = base + random.int(in: -2...10) * 600_000
        let to = from + random.int(in: 1...30) * 600_000
        let breakdown = random.pick(breakdowns)
        return FunnelQuery(funnel: funnel, fromMs: from, toMs: to, windowMs: random.int(in: 1...12) * 600_000,
                           actor: random.pick([.install, .user]), breakdown: breakdown)
    }

    /// Funnels whose steps share events (one event can match several steps) and a 2-step
    /// funnel: the cases the window passes' "a later start never gives an earlier chain" rests on.
    static let overlapping = [
        fixtureFunnel([["app_open"], ["app_open"]]),
        fixtureFunnel([["app_open"], ["app_open", "onboarding_viewed"], ["onboarding_viewed"]]),
        fixtureFunnel([["app_open", "library_viewed"], ["library_viewed", "flow_builder_opened"], ["flow_builder_opened", "app_open"], ["app_open"]]),
    ]

    @Test("steps that share events, and 2-step funnels: the walk, the SQL and the reference agree", arguments: 1...16)
    func overlappingSteps(seed: UInt64) throws {
        let events = Self.randomEvents(seed: seed)
        let store = try FixtureStore(events)
        defer { store.remove() }
        var random = SeededRandom(seed: seed ^ 0x5EED)
        for funnel in Self.overlapping {
            let query = Self.randomQuery(funnel, breakdowns: [nil, "network_state"], &random)
            #expect(try store.funnel(query) == ReferenceFunnel.run(events, query), "seed \(seed) \(funnel.steps.map(\.events))")
        }
    }

    @Test("the SQL and the reference loops agree on random datasets", arguments: 1...24)
    func agree(seed: UInt64) throws {
        let events = Self.randomEvents(seed: seed)
        let store = try FixtureStore(events)
        defer { store.remove() }
        var random = SeededRandom(seed: seed ^ 0xABCDEF)
        let catalog = RepositoryCatalog.catalog
        for funnel in catalog.funnels where ["F0", "F1"].contains(funnel.id) {
            for _ in 0..<3 {
                let query = Self.randomQuery(funnel, breakdowns: [nil, "network_state", funnel.id == "F0" ? "start_type" : "user_state"], &random)
                let expected = ReferenceFunnel.run(events, query)
                #expect(try store.funnel(query) == expected, "seed \(seed) \(funnel.id) \(query.actor) \(query.breakdown ?? "-")")
            }
        }
    }

    /// Sharing across installs: links, opens, imports and saves carrying ids from small pools,
    /// so links are opened by several receivers, by their own sender, twice by one receiver, and
    /// imports repeat.
    static func sharingEvents(seed: UInt64) -> [FixtureEvent] {
        var random = SeededRandom(seed: seed)
        // Imports and saves weighted up, so receivers often import one link twice and save only
        // one of the imports (the case where the first candidate is not the best chain).
        let names = ["share_link_create_tapped", "share_link_created", "share_link_opened", "import_received", "import_received",
                     "import_saved_to_library_success", "import_saved_to_library_success", "flow_saved_success", "app_open"]
        var events: [FixtureEvent] = []
        var usedIDs = Set<UInt8>()
        for _ in 0..<Int(random.int(in: 30...160)) {
            let id = Self.unusedID(&usedIDs, &random)
            // A narrower grid than the other suites: chains fit the random windows more often.
            let time = base + random.int(in: -1...14) * 600_000
            var event = FixtureEvent(id: id, name: random.pick(names), timeMs: time, install: "i\(random.int(in: 0...3))")
            event.user = random.chance(0.3) ? "u\(random.int(in: 0...2))" : nil
            event.networkState = random.pick(["online", "offline"])
            let link = "\"L\(random.int(in: 1...3))\"", imported = "\"M\(random.int(in: 1...3))\"", flow = "\"W\(random.int(in: 1...3))\""
            switch event.name {
            case "share_link_created", "share_link_opened": event.properties["share_link_id"] = link
            case "import_received": event.properties = ["share_link_id": link, "import_id": imported]
            case "import_saved_to_library_success": event.properties = ["import_id": imported, "new_flow_id": flow]
            case "flow_saved_success": event.properties["flow_id"] = flow
            default: break
            }
            events.append(event)
        }
        return events
    }

    /// A funnel whose hand-off comes at step 2 (the first actor's only step is the link), whose
    /// hand-off a later step links to (every open is a branch), with a success after step 2.
    static let handoffAtStepTwo = FunnelDefinition(
        id: "T2", title: "fixture", spec: "test", windowSeconds: 3_600, success: "test",
        successCondition: FunnelSuccess(events: ["flow_saved_success"], afterStep: 2),
        steps: [FunnelStep(events: ["share_link_created"]),
                FunnelStep(events: ["share_link_opened"], otherActor: true, link: FunnelLink(step: 1, property: "share_link_id")),
                FunnelStep(events: ["import_received"], link: FunnelLink(step: 2, property: "share_link_id"))])

    @Test("funnels across people: the walk, the SQL and a reference that tries every chain agree", arguments: 1...24)
    func acrossPeople(seed: UInt64) throws {
        let events = Self.sharingEvents(seed: seed)
        let store = try FixtureStore(events)
        defer { store.remove() }
        var random = SeededRandom(seed: seed ^ 0x2F2)
        let f2 = try #require(RepositoryCatalog.catalog.funnels.first { $0.id == "F2" })
        for funnel in [f2, Self.handoffAtStepTwo] {
            for _ in 0..<2 {
                let query = Self.randomQuery(funnel, breakdowns: [nil, "network_state"], &random)
                #expect(try store.funnel(query) == ReferenceFunnel.run(events, query), "seed \(seed) \(funnel.id) \(query.actor) \(query.breakdown ?? "-")")
            }
        }
    }
}

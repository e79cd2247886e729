import HandzAnalyticsCore
import HandzQuery
import HandzSynthetic
import HandzTestSupport
import Testing

/// The funnel modes of issue 35 §3 — strict order, any order, exclusion steps, conversion over
/// time — on random datasets full of ties and of events no step names: the chain walk, the
/// SQLite SQL and the column engine (``FixtureStore/funnel(_:)``) against the plain loops below,
/// written from the rules in "Funnel semantics" and nothing else.
@Suite struct FunnelModesReferenceTests {
    /// F0's first three steps and an alternative: the random datasets' events.
    static let steps = [["app_open"], ["onboarding_viewed"], ["flow_builder_opened", "library_viewed"], ["flow_draft_created"]]

    static func funnels(_ random: inout SeededRandom) -> [FunnelDefinition] {
        let count = Int(random.int(in: 2...4))
        let steps = Array(Self.steps.prefix(count))
        var strict = fixtureFunnel(steps)
        strict.order = .strict
        var strictWithSuccess = fixtureFunnel(steps, success: FunnelSuccess(events: ["flow_saved_success"], afterStep: 1))
        strictWithSuccess.order = .strict
        var anyOrder = fixtureFunnel(steps, filters: [1: [PropertyFilter(property: "start_type", values: ["cold"])]])
        anyOrder.order = .any
        let from = Int(random.int(in: 1...Int64(count - 1)))
        var excluding = fixtureFunnel(steps, success: FunnelSuccess(events: [], filters: [PropertyFilter(property: "user_state", values: ["guest"])], afterStep: count))
        excluding.exclusions = [FunnelExclusion(events: ["signup_viewed", "gate_result"], fromStep: from, toStep: Int(random.int(in: Int64(from + 1)...Int64(count)))),
                                FunnelExclusion(events: ["guest_mode_entered"], filters: [PropertyFilter(property: "network_state", values: ["offline"])], fromStep: 1, toStep: count)]
        return [strict, strictWithSuccess, anyOrder, excluding]
    }

    @Test("strict, any order, exclusions and conversion over time: the walk, the SQL, the column engine and the reference agree", arguments: 1...24)
    func agree(seed: UInt64) throws {
        // Text install ids, and the same installs as UUIDs: the column engine counts UUID codes
        // into place and, in strict order, collapses the breakers between steps
        // (`FunnelRows.collapsingBreakers`); text keys take the merge.
        for uuidInstalls in [false, true] {
            try agree(seed: seed, events: FunnelReferenceTests.randomEvents(seed: seed).map { event in
                var event = event
                if uuidInstalls { event.install = "00000000-0000-4000-8000-0000000000\(event.install.dropFirst().count == 1 ? "0" : "")\(event.install.dropFirst())" }
                return event
            })
        }
    }

    private func agree(seed: UInt64, events: [FixtureEvent]) throws {
        let store = try FixtureStore(events)
        defer { store.remove() }
        var random = SeededRandom(seed: seed ^ 0x35)
        for funnel in Self.funnels(&random) {
            for byDay in [false, true] {
                var query = FunnelReferenceTests.randomQuery(funnel, breakdowns: byDay ? [nil] : [nil, "network_state"], &random)
                // Ranges across midnight UTC, so conversion over time has several days.
                query.fromMs -= random.int(in: 0...30) * 3_600_000
                query.toMs += random.int(in: 0...30) * 3_600_000
                query.byEntryDay = byDay
                let expected = Self.reference(events, query)
                #expect(try store.funnel(query) == expected, "seed \(seed) \(funnel.order) \(funnel.exclusions.count) byDay \(byDay) \(query.actor)")
            }
        }
    }

    @Test("what the modes do not define is refused with invalid_funnel, naming no value")
    func refusals() throws {
        let catalog = RepositoryCatalog.catalog
        let f2 = try #require(catalog.funnels.first { $0.id == "F2" })
        var strictF2 = FunnelQuery(funnel: f2, fromMs: 0, toMs: 1)
        strictF2.funnel.order = .strict
        #expect(throws: QueryError.self) { try FunnelModes.check(strictF2) }
        var overlapping = FunnelQuery(funnel: fixtureFunnel([["app_open"], ["app_open", "onboarding_viewed"]]), fromMs: 0, toMs: 1)
        overlapping.funnel.order = .any
        #expect(throws: QueryError.invalidFunnel("T: in any order, an event may be in one step only")) { try FunnelModes.check(overlapping) }
        var strictExcluding = FunnelQuery(funnel: fixtureFunnel(Array(Self.steps.prefix(2))), fromMs: 0, toMs: 1)
        strictExcluding.funnel.order = .strict
        strictExcluding.funnel.exclusions = [FunnelExclusion(events: ["signup_viewed"], fromStep: 1, toStep: 2)]
        #expect(throws: QueryError.self) { try FunnelModes.check(strictExcluding) }
        var dayAndBreakdown = FunnelQuery(funnel: fixtureFunnel(Array(Self.steps.prefix(2))), fromMs: 0, toMs: 1, breakdown: "network_state")
        dayAndBreakdown.byEntryDay = true
        #expect(throws: QueryError.self) { try FunnelModes.check(dayAndBreakdown) }
        // The text form of an exclusion reads back, and a bad range is refused without echoing it.
        let exclusion = try AdHocFunnel.exclusion("gate_result[result=blocked]@2-3", steps: 4, catalog: catalog)
        #expect(exclusion == FunnelExclusion(events: ["gate_result"], filters: [PropertyFilter(property: "result", values: ["blocked"])], fromStep: 2, toStep: 3))
        #expect(AdHocFunnel.text(exclusion, steps: 4) == "gate_result[result=blocked]@2-3")
        #expect(throws: QueryError.invalidFunnel("an exclusion is watched between steps A < B within 1…4")) {
            try AdHocFunnel.exclusion("gate_result@3-9", steps: 4, catalog: catalog)
        }
    }

    /// The rules as plain loops: every chain tried from every entry, per actor (and per entry
    /// day), over all of the actor's events in the total order.
    static func reference(_ events: [FixtureEvent], _ query: FunnelQuery) -> [FunnelKey: FunnelValue] {
        var userOfInstall: [String: String] = [:]
        if query.actor == .user {
            for event in events.sorted(by: ReferenceFunnel.before) where event.user != nil && userOfInstall[event.install] == nil {
                userOfInstall[event.install] = event.user
            }
        }
        let funnel = query.funnel
        let horizon = query.toMs + query.windowMs
        // The events a query reads: [from, to + window), as the SQL's.
        let byActor = Dictionary(grouping: events.filter { $0.timeMs >= query.fromMs && $0.timeMs < horizon }) { userOfInstall[$0.install] ?? $0.install }
            .mapValues { $0.sorted(by: ReferenceFunnel.before) }
        struct Chain { var times: [Int64]; var success: Int64?; var bucket: String? }
        var chains: [(group: String??, chain: Chain)] = []
        for (_, ordered) in byActor {
            var best: [String??: (level: Int, chain: Chain)] = [:]
            for (index, entry) in ordered.enumerated() where entry.timeMs >= query.fromMs && entry.timeMs < query.toMs {
                let deadline = entry.timeMs + query.windowMs
                var chain: Chain
                if funnel.order == .any {
                    guard funnel.steps.contains(where: { ReferenceFunnel.matches(entry, $0) }) else { continue }
                    let times = funnel.steps.compactMap { step in ordered[index...].first { ReferenceFunnel.matches($0, step) && $0.timeMs <= deadline }?.timeMs }
                    chain = Chain(times: times.sorted())
                } else {
                    guard ReferenceFunnel.matches(entry, funnel.steps[0]) else { continue }
                    var positions = [index]
                    for step in funnel.steps.dropFirst() {
                        let last = positions.last!
                        let next = funnel.order == .strict
                            ? (last + 1 < ordered.count && ReferenceFunnel.matches(ordered[last + 1], step) ? last + 1 : nil)
                            : ordered.indices.first { $0 > last && ReferenceFunnel.matches(ordered[$0], step) }
                        guard let next, ordered[next].timeMs <= deadline else { break }
                        positions.append(next)
                    }
                    let excluded = funnel.exclusions.contains { exclusion in
                        (exclusion.fromStep..<exclusion.toStep).contains { gap in
                            gap < positions.count && ordered[(positions[gap - 1] + 1)..<positions[gap]].contains { event in
                                exclusion.events.contains(event.name) && exclusion.filters.allSatisfy { event.text($0.property).map($0.values.contains) ?? false }
                            }
                        }
                    }
                    if excluded { continue }
                    chain = Chain(times: positions.map { ordered[$0].timeMs })
                    if let success = funnel.successCondition, positions.count >= success.afterStep {
                        chain.success = ordered[(positions[success.afterStep - 1] + 1)...].first { ReferenceFunnel.matchesSuccess($0, success) && $0.timeMs <= deadline }?.timeMs
                    }
                }
                chain.bucket = query.breakdown.flatMap { entry.text($0) }
                // The highest level, the earliest entry on ties: overall, and per entry day.
                var groups: [String??] = [nil]
                if query.byEntryDay { groups.append(.some(String(entry.timeMs / 86_400_000))) }
                for group in groups where chain.times.count > (best[group]?.level ?? 0) { best[group] = (chain.times.count, chain) }
            }
            chains += best.map { ($0.key, $0.value.chain) }
            // A breakdown labels the actor's reported chain with its entry's value.
            if query.breakdown != nil, let reported = best[nil]?.chain { chains.append((.some(reported.bucket), reported)) }
        }
        var out: [FunnelKey: FunnelValue] = [:]
        for group in Set(chains.map(\.group)) {
            let inGroup = chains.filter { $0.group == group }.map(\.chain)
            for k in 1...funnel.steps.count + 1 {
                let deltas: [Int64?] = inGroup.compactMap { chain in
                    if k == funnel.steps.count + 1 {
                        guard let success = chain.success, let after = funnel.successCondition?.afterStep else { return nil }
                        return success - chain.times[after - 1]
                    }
                    guard chain.times.count >= k else { return nil }
                    return k == 1 ? .some(nil) : chain.times[k - 1] - chain.times[k - 2]
                }
                guard !deltas.isEmpty else { continue }
                out[FunnelKey(bucket: group, step: k)] = FunnelValue(actors: Int64(deltas.count), medianMs: k == 1 ? nil : Median.lower(deltas.compactMap { $0 }))
            }
        }
        return out
    }
}

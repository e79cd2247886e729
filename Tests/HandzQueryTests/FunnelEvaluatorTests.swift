import HandzAnalyticsCore
import HandzQuery
import HandzSynthetic
import HandzTestSupport
import Testing

/// The chain walk reads the funnel's events unordered (a table scan): the order they arrive in
/// must not change the answer, and the id must break same-millisecond ties. (Its agreement with
/// the SQL is checked on every fixture and random dataset through `FixtureStore.funnel`.)
@Suite struct FunnelEvaluatorTests {
    static let f0 = RepositoryCatalog.catalog.funnels.first { $0.id == "F0" }!
    static let base: Int64 = 1_772_323_200_000

    struct Row { var actor: String; var time: Int64; var id: UInt8; var steps: UInt32; var breakdown: String? }

    static func report(_ rows: [Row], breakdown: String? = nil) -> FunnelReport {
        var evaluator = FunnelEvaluator(query: FunnelQuery(funnel: f0, fromMs: base, toMs: base + 86_400_000, breakdown: breakdown))
        for row in rows {
            evaluator.add(actor: row.actor, timeMs: row.time, eventID: [row.id] + Array(repeating: 0, count: 15), steps: row.steps, breakdown: row.breakdown)
        }
        return evaluator.report()
    }

    @Test("the same events in any order give the same report", arguments: 1...8)
    func orderDoesNotMatter(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var rows: [Row] = []
        for id in 0..<200 {
            rows.append(Row(actor: "a\(random.int(in: 0...9))", time: Self.base + random.int(in: 0...30) * 60_000, id: UInt8(id),
                            steps: UInt32(random.int(in: 1...31)), breakdown: random.pick(["cold", "warm", nil])))
        }
        let expected = Self.report(rows, breakdown: "start_type")
        var shuffled = rows
        shuffled.shuffle(using: &random)
        #expect(Self.report(shuffled, breakdown: "start_type") == expected)
        #expect(Self.report(rows.reversed(), breakdown: "start_type") == expected)
        #expect(expected.steps[0].actors > 0)
    }

    @Test("same-millisecond events are ordered by event_id: step 2 must come after step 1 in that order")
    func idBreaksTies() {
        let t = Self.base + 1_000
        // Step 2 (bit 1) with a smaller id than the entry at the same millisecond comes before it.
        let before = Self.report([Row(actor: "a", time: t, id: 2, steps: 1, breakdown: nil), Row(actor: "a", time: t, id: 1, steps: 2, breakdown: nil)])
        let after = Self.report([Row(actor: "a", time: t, id: 1, steps: 1, breakdown: nil), Row(actor: "a", time: t, id: 2, steps: 2, breakdown: nil)])
        #expect(before.steps.map(\.actors) == [1, 0, 0, 0, 0])
        #expect(after.steps.map(\.actors) == [1, 1, 0, 0, 0])
        #expect(after.steps[1].medianMsFromPrevious == 0)
    }
}

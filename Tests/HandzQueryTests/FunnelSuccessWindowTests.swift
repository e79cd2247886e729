import HandzAnalyticsCore
import HandzQuery
import HandzTestSupport
import Testing

/// A success on any event (F1's) is looked up per actor in the windows the step events leave
/// open; the walk's agreement with the SQL on whole datasets is `AnalyticalLayerAgreementTests`'.
@Suite struct FunnelSuccessWindowTests {
    static let f1 = RepositoryCatalog.catalog.funnels.first { $0.id == "F1" }!
    static let base: Int64 = 1_772_323_200_000
    static let hour: Int64 = 3_600_000

    @Test("the window runs from the actor's first event of the success's step to its last entry in range plus the funnel window")
    func windows() {
        let query = FunnelQuery(funnel: Self.f1, fromMs: Self.base, toMs: Self.base + 48 * Self.hour)
        var evaluator = FunnelEvaluator(query: query)
        let last: UInt32 = 1 << UInt32(Self.f1.steps.count - 1)
        func add(_ actor: String, _ hours: Int64, _ steps: UInt32, _ id: UInt8) {
            evaluator.add(actor: actor, timeMs: Self.base + hours * Self.hour, eventID: [id] + Array(repeating: 0, count: 15), steps: steps, breakdown: nil)
        }
        // a: entries at 1 h and 5 h, the last step at 30 h and 3 h (its first).
        add("a", 1, 1, 1); add("a", 5, 1, 2); add("a", 30, last, 3); add("a", 3, last, 4)
        // b: an entry, but no event of the last step: no success can count.
        add("b", 2, 1, 5); add("b", 4, 2, 6)
        // c: the last step, but its only entry is after the range.
        add("c", 50, 1, 7); add("c", 51, last, 8)
        // d: the last step more than a window after its last entry.
        add("d", 1, 1, 9); add("d", 1 + 24 * 7 + 1, last, 10)
        let windows = evaluator.successSearchWindows()
        #expect(windows.map(\.actor) == ["a"])
        #expect(windows.first?.fromMs == Self.base + 3 * Self.hour)
        #expect(windows.first?.throughMs == Self.base + 5 * Self.hour + query.windowMs)
    }

    @Test("success events added in the window complete the chain; without them it has no success row")
    func successCounts() throws {
        let query = FunnelQuery(funnel: Self.f1, fromMs: Self.base, toMs: Self.base + 48 * Self.hour)
        var evaluator = FunnelEvaluator(query: query)
        let steps = Self.f1.steps.count
        for step in 0..<steps {
            evaluator.add(actor: "a", timeMs: Self.base + Int64(step) * Self.hour, eventID: [UInt8(step + 1)] + Array(repeating: 0, count: 15),
                          steps: 1 << UInt32(step), breakdown: nil)
        }
        #expect(evaluator.report().steps.last?.actors == 1)
        #expect(evaluator.report().success?.actors ?? 0 == 0)
        let window = try #require(evaluator.successSearchWindows().first)
        evaluator.add(actor: "a", timeMs: window.fromMs + Self.hour, eventID: [99] + Array(repeating: 0, count: 15), steps: 1 << UInt32(steps), breakdown: nil)
        let report = evaluator.report()
        #expect(report.success?.actors == 1)
        #expect(report.success?.medianMsFromPrevious == Self.hour)
    }
}

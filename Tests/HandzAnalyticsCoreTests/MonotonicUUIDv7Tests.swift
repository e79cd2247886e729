import HandzAnalyticsCore
import HandzSynthetic
import Testing

/// Event ids sort in emission order on one device (RFC 9562 §6.2), which the server's tie-break by
/// event_id relies on (HandzQuery docs, "Funnel semantics").
@Suite struct MonotonicUUIDv7Tests {
    @Test("100,000 ids in one millisecond, in a tight loop, strictly increase and stay valid v7 ids of that millisecond")
    func sameMillisecond() {
        var generator = MonotonicUUIDv7()
        var random = SeededRandom(seed: 9)
        var previous = ""
        var increasing = true
        for _ in 0..<100_000 {
            let id = generator.next(milliseconds: 1_772_366_400_000, using: &random)
            if id <= previous { increasing = false }
            previous = id
        }
        #expect(increasing)
        #expect(StringFormat.uuid.matches(previous))
        #expect(previous.hasPrefix("019ca945-0a00-7"))  // the millisecond stays 1,772,366,400,000
    }

    @Test("ids over advancing milliseconds (1,000 per millisecond), and after the clock steps back, strictly increase")
    func advancingAndSteppingBack() {
        var generator = MonotonicUUIDv7()
        var random = SystemRandomNumberGenerator()
        var ids: [String] = []
        for index in 0..<100_000 {
            let now = 1_772_366_400_000 + UInt64(index / 1_000)
            ids.append(generator.next(milliseconds: now, using: &random))
        }
        ids.append(generator.next(milliseconds: 1_772_366_399_000, using: &random))  // the clock went back a second
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("every random draw is used: a run of fresh milliseconds gives ids as random as plain v7")
    func freshMilliseconds() {
        var generator = MonotonicUUIDv7()
        var random = SeededRandom(seed: 3)
        let ids = (0..<1_000).map { generator.next(milliseconds: 1_772_366_400_000 + UInt64($0), using: &random) }
        #expect(Set(ids.map { $0.suffix(12) }).count == 1_000)
    }
}

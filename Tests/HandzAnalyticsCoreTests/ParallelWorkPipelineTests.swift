import Foundation
import Synchronization
import Testing
@testable import HandzAnalyticsCore

/// `ParallelWork.pipeline`: items built on the workers reach the consumer in order, each once,
/// never more than the window ahead of it; a failure on either side stops the rest.
@Suite struct ParallelWorkPipelineTests {
    struct Stop: Error, Equatable { var index: Int }

    @Test("every item reaches the consumer once, in order, at most the window ahead of it", arguments: [1, 3])
    func inOrderWithinTheWindow(window: Int) throws {
        let started = Atomic<Int>(0)
        var consumed: [Int] = []
        var mostAhead = 0
        try ParallelWork.pipeline(count: 300, window: window, build: { index in
            started.add(1, ordering: .sequentiallyConsistent)
            // Uneven items, as a seal's chunks are: some take far longer than others.
            if index % 17 == 0 { Thread.sleep(forTimeInterval: 0.002) }
            return index * 2
        }, consume: { index, output in
            #expect(output == index * 2)
            consumed.append(index)
            mostAhead = max(mostAhead, started.load(ordering: .sequentiallyConsistent) - (index + 1))
        })
        #expect(consumed == Array(0..<300))
        #expect(mostAhead <= window, "built ahead of the consumer: \(mostAhead), window \(window)")
    }

    @Test("a build that throws stops the pipeline: the items before it are consumed, none after, the first item's error rethrown")
    func buildFailure() {
        var consumed: [Int] = []
        #expect(throws: Stop(index: 50)) {
            try ParallelWork.pipeline(count: 200, window: 4, build: { index in
                // Item 50 fails after item 51 has, as a slower item would: item 50's error wins.
                if index == 49 || index == 50 { Thread.sleep(forTimeInterval: 0.02) }
                if index == 50 || index == 51 { throw Stop(index: index) }
                return index
            }, consume: { index, _ in consumed.append(index) })
        }
        #expect(consumed == Array(0..<50))
    }

    @Test("a consumer that throws stops the workers within the window, and its error is rethrown")
    func consumeFailure() {
        let started = Atomic<Int>(0)
        #expect(throws: Stop(index: 30)) {
            try ParallelWork.pipeline(count: 10_000, window: 2, build: { index in
                started.add(1, ordering: .sequentiallyConsistent)
                return index
            }, consume: { index, _ in if index == 30 { throw Stop(index: 30) } })
        }
        #expect(started.load(ordering: .sequentiallyConsistent) <= 31 + 2)
    }
}

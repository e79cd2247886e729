import Foundation
import Synchronization

/// Runs one query's independent pieces (a chunk each) on both cores (issue 33 §2, "uses both
/// cores"): decoding and matching a chunk's rows is most of a funnel's time, and chunks do not
/// depend on each other. The results come back in the items' order, so what is built from them
/// does not depend on the threads.
enum ParallelWork {
    /// Threads per query: this machine's cores, at most two (the render runs two panels at once
    /// too; more would only contend).
    static let workers = max(1, min(2, ProcessInfo.processInfo.activeProcessorCount))

    /// `body` of each item, in the items' order; the first error thrown is rethrown (the rest of
    /// the items are then left undone).
    static func map<Item: Sendable, Output: Sendable>(_ items: [Item], _ body: @Sendable (Item) throws -> Output) throws -> [Output] {
        guard items.count > 1, workers > 1 else { return try items.map(body) }
        let next = Atomic<Int>(0)
        let outputs = Mutex<[Output?]>(Array(repeating: nil, count: items.count))
        let failure = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while failure.withLock({ $0 == nil }) {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < items.count else { return }
                do {
                    let output = try body(items[index])
                    outputs.withLock { $0[index] = output }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return outputs.withLock { $0.map { $0! } }
    }
}

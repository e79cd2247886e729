import Foundation
import Synchronization

/// Runs one query's independent pieces on both cores (issue 33 §2, "uses both cores"): the
/// column store's chunks (decoding and matching a chunk's rows is most of a funnel's time, and
/// chunks do not depend on each other), the funnel evaluator's actors. The results come back in
/// the items' order, so what is built from them does not depend on the threads.
public enum ParallelWork {
    /// Threads per query: this machine's cores, at most two (the render runs two panels at once
    /// too; more would only contend).
    public static let workers = max(1, min(2, ProcessInfo.processInfo.activeProcessorCount))

    /// `body` of each item, in the items' order; the first error thrown is rethrown (the rest of
    /// the items are then left undone). A body that cannot throw (`Failure` is `Never`) needs no
    /// `try`.
    public static func map<Item: Sendable, Output: Sendable, Failure: Error>(
        _ items: [Item], _ body: @Sendable (Item) throws(Failure) -> Output
    ) throws(Failure) -> [Output] {
        guard items.count > 1, workers > 1 else {
            var outputs: [Output] = []
            outputs.reserveCapacity(items.count)
            for item in items { outputs.append(try body(item)) }
            return outputs
        }
        let next = Atomic<Int>(0)
        let outputs = Mutex<[Output?]>(Array(repeating: nil, count: items.count))
        let failure = Mutex<Failure?>(nil)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while failure.withLock({ $0 == nil }) {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < items.count else { return }
                do throws(Failure) {
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

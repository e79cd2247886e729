import Foundation

extension ParallelWork {
    /// Builds items `0..<count` on ``workers`` threads and hands each output to `consume` on the
    /// calling thread, in the items' order, with at most `window` outputs built ahead of it.
    ///
    /// For work whose last step must run one item at a time and in order (a seal numbering
    /// dictionary entries and writing files) while the step before it is independent per item:
    /// the ordered step overlaps the building of the items after it, no thread waits at a barrier
    /// between batches (with items of very different sizes, ``map(_:_:)`` over batches left one
    /// core idle while the other built the batch's largest item), and the window bounds the
    /// outputs held. An error stops the rest and is rethrown once every worker has stopped: the
    /// consumer's, or the first item's (in the items' order) whose build failed, after every item
    /// before it is consumed, as a loop over the items would.
    public static func pipeline<Output: Sendable>(
        count: Int, window: Int, build: @Sendable (Int) throws -> Output, consume: (Int, Output) throws -> Void
    ) throws {
        guard count > 1, workers > 1 else {
            for index in 0..<count { try consume(index, try build(index)) }
            return
        }
        let state = PipelineState<Output>(count: count, window: max(1, window))
        let group = DispatchGroup()
        try withoutActuallyEscaping(build) { build in
            for _ in 0..<workers {
                DispatchQueue.global().async(group: group) { state.work(build) }
            }
            defer { group.wait() }
            for index in 0..<count {
                guard let output = state.take(index) else { break }
                do {
                    try consume(index, output)
                } catch {
                    state.stop()
                    throw error
                }
            }
        }
        if let failure = state.failure { throw failure }
    }
}

/// What the workers of ``ParallelWork/pipeline(count:window:build:consume:)`` and its consumer
/// share, under one lock.
private final class PipelineState<Output: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private let count: Int
    private let window: Int
    /// The next item a worker takes, and the first the consumer has not taken yet.
    private var next = 0
    private var taken = 0
    private var built: [Int: Output] = [:]
    /// The first item (in the items' order) whose build failed, and its error: the items before
    /// it were all taken by workers already, so they are still built and consumed.
    private var buildFailure: (index: Int, error: any Error)?
    private var consumerFailed = false

    init(count: Int, window: Int) {
        (self.count, self.window) = (count, window)
    }

    var failure: (any Error)? { condition.withLock { buildFailure?.error } }

    /// A worker's loop: the next item within the window, built outside the lock.
    func work(_ build: (Int) throws -> Output) {
        condition.lock()
        defer { condition.unlock() }
        while !consumerFailed && buildFailure == nil && next < count {
            guard next < taken + window else {
                condition.wait()
                continue
            }
            let index = next
            next += 1
            condition.unlock()
            let result = Result { try build(index) }
            condition.lock()
            switch result {
            case .success(let output):
                built[index] = output
            case .failure(let error):
                if buildFailure.map({ index < $0.index }) ?? true { buildFailure = (index, error) }
            }
            condition.broadcast()
        }
    }

    /// Item `index` once built; nil when it will not be (its build, or an earlier one, failed).
    func take(_ index: Int) -> Output? {
        condition.lock()
        defer { condition.unlock() }
        while built[index] == nil {
            if let failed = buildFailure, index >= failed.index { return nil }
            condition.wait()
        }
        taken = index + 1
        condition.broadcast()
        return built.removeValue(forKey: index)
    }

    /// Stops the workers after the item each is building (the consumer failed).
    func stop() {
        condition.withLock {
            consumerFailed = true
            condition.broadcast()
        }
    }
}

import Foundation
import HandzAnalyticsCore
import HandzStore

/// The write path of the embedded store (issue 34 §1): one thread takes every request waiting,
/// dedupes their events against the store (``EventIDIndex``) and against each other, appends one
/// frame per request to the open segment with one `write`, makes them durable with one
/// `fdatasync`, and only then answers each: the acknowledgement contract of the SQLite writer it
/// replaces (an event is acknowledged only once it survives `kill -9` and power loss) at the cost
/// of one flush per group, whatever the group's size.
///
/// A failed write (a full disk, an I/O error) answers every request of its group
/// `StoreError.unavailable` (503 with `Retry-After`, CH31) with nothing of them stored or
/// remembered as stored; the next group tries again, so ingestion resumes by itself once space
/// returns. Other threads reach the log (to close the open segment for a seal) through
/// ``withLog(_:)``, which runs between two groups.
public final class SegmentWriter: @unchecked Sendable {
    public struct Limits: Sendable {
        /// Rows per group at most (requests are taken whole: always at least one).
        public var maxRowsPerGroup = 50_000
        /// Rows waiting at most; beyond, `append` answers `StoreError.overloaded`.
        public var maxQueuedRows = 200_000
        /// Ids of unsealed segments held in memory at most; beyond, the sealer is behind and
        /// `append` answers `StoreError.overloaded` until it catches up.
        public var maxPendingIDs = 8_000_000
        public init() {}
    }

    private struct Pending {
        let batch: IngestBatch
        let continuation: CheckedContinuation<AppendResult, any Error>
    }

    private let log: SegmentLog
    private let index: EventIDIndex
    private let limits: Limits
    private let condition = NSCondition()
    private var queue: [Pending] = []
    private var commands: [() -> Void] = []
    private var queued = 0
    private var closing = false
    private var stopped = false
    private var lastWriteFailed = false
    /// Frames made durable and events stored, since the writer started.
    private var counters = (groups: 0, frames: 0, rows: 0)

    public init(log: SegmentLog, index: EventIDIndex, limits: Limits = Limits()) {
        self.log = log
        self.index = index
        self.limits = limits
        let thread = Thread { [self] in self.run() }
        thread.name = "handz-segment-writer"
        thread.start()
    }

    public var isHealthy: Bool { condition.withLock { !stopped && !closing && !lastWriteFailed } }

    /// Groups, frames and rows written so far.
    public var written: (groups: Int, frames: Int, rows: Int) { condition.withLock { counters } }

    /// Stores one request's new events and its receipt; returns once they are durable.
    public func append(_ batch: IngestBatch) async throws -> AppendResult {
        try await withCheckedThrowingContinuation { continuation in enqueue(batch, continuation) }
    }

    private func enqueue(_ batch: IngestBatch, _ continuation: CheckedContinuation<AppendResult, any Error>) {
        condition.lock()
        defer { condition.unlock() }
        guard !closing else { return continuation.resume(throwing: StoreError.closed) }
        let rows = max(batch.rows.count + batch.rejected.count, 1)
        if queued > 0 && queued + rows > limits.maxQueuedRows { return continuation.resume(throwing: StoreError.overloaded) }
        queue.append(Pending(batch: batch, continuation: continuation))
        queued += rows
        condition.signal()
    }

    /// Removes the sealed segments through `sequence`: dropped from the log's list on the writer's
    /// thread, their files unlinked and the directory flushed on the caller's (``SegmentLog/forget(through:)``).
    public func removeSealed(through sequence: UInt64) throws {
        let paths = try withLog { $0.forget(through: sequence) }
        try SegmentLog.removeFiles(paths, in: log.directory)
    }

    /// Runs `body` on the writer's thread between two groups, with the log to itself.
    public func withLog<T>(_ body: @escaping (SegmentLog) throws -> T) throws -> T {
        let done = NSCondition()
        var outcome: Result<T, any Error>?
        condition.lock()
        guard !stopped else {
            condition.unlock()
            throw StoreError.closed
        }
        commands.append {
            let result = Result { try body(self.log) }
            done.withLock {
                outcome = result
                done.signal()
            }
        }
        condition.signal()
        condition.unlock()
        done.lock()
        while outcome == nil { done.wait() }
        done.unlock()
        return try outcome!.get()
    }

    /// Stops taking requests, writes the ones waiting, and waits for the thread to end.
    public func close() {
        condition.lock()
        closing = true
        condition.signal()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && commands.isEmpty && !closing { condition.wait() }
            let commandsNow = commands
            commands = []
            if queue.isEmpty && commandsNow.isEmpty && closing {
                log.close()
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            // The group: requests from the front while they fit, removed at once (one by one,
            // each removal moved the whole queue: a follower's page of one-event requests made
            // that quadratic, a fifth of its catch-up in memmove).
            var count = 0
            var rows = 0
            while count < queue.count, count == 0 || rows + queue[count].batch.rows.count <= limits.maxRowsPerGroup {
                rows += max(queue[count].batch.rows.count + queue[count].batch.rejected.count, 1)
                count += 1
            }
            let taken = Array(queue.prefix(count))
            queue.removeFirst(count)
            queued -= rows
            condition.unlock()
            for command in commandsNow { command() }
            if !taken.isEmpty { write(taken) }
        }
    }

    /// Dedupes, encodes, appends and flushes one group, then answers it.
    private func write(_ taken: [Pending]) {
        switch writeGroup(taken) {
        case .success(let results):
            for (pending, result) in zip(taken, results) { pending.continuation.resume(returning: result) }
        case .failure(let answer):
            for pending in taken { pending.continuation.resume(throwing: answer) }
        }
        // A roll that fails leaves no segment open; the next group's append opens one or fails.
        if log.openSegmentIsFull { _ = try? log.roll() }
    }

    private func writeGroup(_ taken: [Pending]) -> Result<[AppendResult], StoreError> {
        guard index.counts.pending < limits.maxPendingIDs else { return .failure(.overloaded) }
        var seen = Set<UUIDWords>()
        var frames: [UInt8] = []
        var payload: [UInt8] = []
        var results: [AppendResult] = []
        do {
            for pending in taken {
                let rows = pending.batch.rows
                var inserted = [Bool](repeating: false, count: rows.count)
                for row in 0..<rows.count {
                    let id = rows.eventID(row).withUnsafeBytes { UUIDWords(orderingBytes: $0) }
                    guard !seen.contains(id) else { continue }
                    if try index.contains(id) { continue }
                    seen.insert(id)
                    inserted[row] = true
                }
                payload.removeAll(keepingCapacity: true)
                BatchRecord(pending.batch, inserted: inserted).encode(into: &payload)
                payload.withUnsafeBytes { SegmentLayout.appendFrame($0, to: &frames) }
                results.append(AppendResult(inserted: inserted))
            }
            try log.append(frames)
        } catch {
            condition.withLock { lastWriteFailed = true }
            return .failure(.unavailable(error.code == .diskFull ? "disk full" : "write error"))
        }
        if !seen.isEmpty { index.addPending(seen, segment: log.openSegment.sequence) }
        condition.withLock {
            lastWriteFailed = false
            counters.groups += 1
            counters.frames += taken.count
            counters.rows += seen.count
        }
        return .success(results)
    }
}

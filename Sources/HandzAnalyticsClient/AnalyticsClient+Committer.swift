import Foundation

/// The committer thread: pending events to the SQLite queue in one transaction per burst, and
/// the one door to the queue's connection (`withDatabase`).
extension AnalyticsClient {
    @discardableResult
    func withDatabase<T>(_ body: () throws -> T) -> T? {
        databaseLock.lock()
        defer { databaseLock.unlock() }
        do {
            return try body()
        } catch {
            lock.withLock { lastError = "queue storage error" }
            return nil
        }
    }

    func commitPending() {
        databaseLock.lock()
        defer { databaseLock.unlock() }
        let (batch, invalid) = lock.withLock { () -> ([EventQueue.Pending], Int) in
            defer { pending = []; pendingInvalid = 0 }
            return (pending, pendingInvalid)
        }
        guard !batch.isEmpty || invalid > 0 else { return }
        do {
            try queue.commit(batch, invalid: invalid, maxEvents: configuration.maxQueuedEvents, maxBytes: configuration.maxQueuedBytes)
            if !batch.isEmpty {
                lock.withLock {
                    // The flush timer starts with the first queued event.
                    if !queueHasEvents { queueHasEvents = true; lastFlushCheck = clock() }
                    lock.broadcast()
                }
            }
        } catch {
            // Not written: put them back for the next attempt rather than lose them.
            lock.withLock {
                pending = batch + pending
                pendingInvalid += invalid
                lastError = "queue storage error"
            }
        }
    }

    /// Sleeps without a timer while nothing is pending (an idle app is not woken, issue 17); once
    /// an event is tracked, gives the burst `commitInterval` to gather and writes it in one
    /// transaction.
    func commitLoop() {
        while true {
            lock.lock()
            while running && pending.isEmpty && pendingInvalid == 0 {
                time.wait(.committer, on: lock, until: nil)
                wakeUpCount += 1
            }
            if running {
                time.wait(.committer, on: lock, until: clock().addingTimeInterval(configuration.commitInterval))
                wakeUpCount += 1
            }
            let stop = !running
            lock.unlock()
            commitPending()
            if let count = withDatabase({ try queue.summary().count }), count >= configuration.flushThreshold {
                lock.withLock { uploadRequested = true; lock.broadcast() }
            }
            if stop { break }
        }
        lock.withLock { threadsRunning -= 1; lock.broadcast() }
    }
}

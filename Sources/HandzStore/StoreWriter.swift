import Foundation
import HandzSQLite

/// The single writer: a dedicated thread (SQLite calls block, so they stay off the async pool)
/// that takes every queued request, writes them in one transaction, commits, then answers each.
final class StoreWriter: @unchecked Sendable {
    typealias Continuation = CheckedContinuation<AppendResult, any Error>

    private struct Pending {
        let batch: IngestBatch
        let continuation: Continuation
    }

    private let database: SQLiteDatabase
    private let configuration: StoreConfiguration
    private let condition = NSCondition()
    private var queue: [Pending] = []
    private var queued = 0
    private var closing = false
    private var stopped = false
    private var lastCommitFailed = false
    private var thread: Thread?

    private let insertEvent: SQLiteStatement
    private let insertRejected: SQLiteStatement
    private let insertBatch: SQLiteStatement

    init(database: SQLiteDatabase, configuration: StoreConfiguration) throws {
        self.database = database
        self.configuration = configuration
        let columns = ["event_id", "event_time_ms", "received_time_ms", "key_id", "catalog_version"] + EventRows.Field.allCases.map(\.column)
        insertEvent = try database.prepare("INSERT OR IGNORE INTO events(\(columns.joined(separator: ", "))) VALUES (\((1...columns.count).map { "?\($0)" }.joined(separator: ", ")))")
        insertRejected = try database.prepare("INSERT INTO rejected_events(received_time_ms, key_id, event_name, error_codes, errors, byte_size) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        insertBatch = try database.prepare("INSERT INTO batches(received_time_ms, key_id, sent_at_ms, events, accepted, duplicates, rejected, body_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "handz-store-writer"
        self.thread = thread
        thread.start()
    }

    var isHealthy: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !stopped && !closing && !lastCommitFailed
    }

    var queuedRows: Int {
        condition.lock()
        defer { condition.unlock() }
        return queued
    }

    func enqueue(_ batch: IngestBatch, _ continuation: Continuation) {
        condition.lock()
        if closing {
            condition.unlock()
            continuation.resume(throwing: StoreError.closed)
            return
        }
        let rows = max(batch.rows.count + batch.rejected.count, 1)
        if queued > 0 && queued + rows > configuration.maxQueuedRows {
            condition.unlock()
            continuation.resume(throwing: StoreError.overloaded)
            return
        }
        queue.append(Pending(batch: batch, continuation: continuation))
        queued += rows
        condition.signal()
        condition.unlock()
    }

    /// Stops taking work, drains the queue, and waits for the thread to finish.
    func close() {
        condition.lock()
        closing = true
        condition.signal()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !closing { condition.wait() }
            if queue.isEmpty && closing {
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            // Take whole requests up to the per-commit row budget (always at least one).
            var taken: [Pending] = []
            var rows = 0
            while let next = queue.first, taken.isEmpty || rows + next.batch.rows.count <= configuration.maxRowsPerCommit {
                taken.append(queue.removeFirst())
                rows += max(next.batch.rows.count + next.batch.rejected.count, 1)
            }
            queued -= rows
            condition.unlock()
            commit(taken)
        }
    }

    private func commit(_ taken: [Pending]) {
        var results: [AppendResult] = []
        do {
            try database.execute("BEGIN IMMEDIATE")
            for pending in taken { results.append(try write(pending.batch)) }
            try database.execute("COMMIT")
            setFailed(false)
            for (pending, result) in zip(taken, results) { pending.continuation.resume(returning: result) }
        } catch {
            try? database.execute("ROLLBACK")
            setFailed(true)
            let reason = (error as? SQLiteError).map { $0.isTransient ? "busy or full" : "write error \($0.code)" } ?? "write error"
            for pending in taken { pending.continuation.resume(throwing: StoreError.unavailable(reason)) }
        }
    }

    private func setFailed(_ failed: Bool) {
        condition.lock()
        lastCommitFailed = failed
        condition.unlock()
    }

    private func write(_ batch: IngestBatch) throws -> AppendResult {
        var inserted: [Bool] = []
        inserted.reserveCapacity(batch.rows.count)
        let rows = batch.rows
        let statement = insertEvent
        try rows.eventIDs.withUnsafeBytes { ids in
            for row in 0..<rows.count {
                try statement.bindBlob(UnsafeRawBufferPointer(rebasing: ids[(row * 16)..<(row * 16 + 16)]), at: 1)
                try statement.bindInt(rows.eventTimes[row], at: 2)
                try statement.bindInt(batch.receivedTimeMs, at: 3)
                try statement.bind(.text(batch.keyID), at: 4)
                try statement.bind(.text(batch.catalogVersion), at: 5)
                for field in EventRows.Field.allCases {
                    let index = Int32(6 + field.rawValue)
                    try rows.withField(row, field) { value in
                        if let value { try statement.bindText(value, at: index) } else { try statement.bindNull(at: index) }
                    }
                }
                try statement.step()
                inserted.append(database.changes == 1)
                statement.reset()
            }
        }
        for record in batch.rejected {
            let codes = Array(Set(record.errors.map(\.code))).sorted().joined(separator: ",")
            let errors = "[" + record.errors.map { "{\"code\":\"\($0.code)\",\"path\":\(Self.quote($0.path))}" }.joined(separator: ",") + "]"
            try insertRejected.run([
                .integer(batch.receivedTimeMs), .text(batch.keyID), record.eventName.map { .text($0) } ?? .null,
                .text(codes), .text(errors), .integer(Int64(record.byteSize)),
            ])
        }
        let result = AppendResult(inserted: inserted)
        try insertBatch.run([
            .integer(batch.receivedTimeMs), .text(batch.keyID), batch.sentAtMs.map { .integer($0) } ?? .null,
            .integer(Int64(rows.count + batch.rejected.count)), .integer(Int64(result.accepted)),
            .integer(Int64(result.duplicates)), .integer(Int64(batch.rejected.count)), .integer(Int64(batch.bodyBytes)),
        ])
        return result
    }

    /// Paths come from the validator (catalog names or `*`), but quote them properly anyway.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

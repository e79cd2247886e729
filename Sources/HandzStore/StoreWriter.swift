import Foundation
import HandzAnalyticsCore
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
    /// Each install's first-seen time (``InstallFirstSeen``), once per install per commit.
    private let upsertFirstSeen: SQLiteStatement

    init(database: SQLiteDatabase, configuration: StoreConfiguration) throws {
        self.database = database
        self.configuration = configuration
        insertEvent = try database.prepare(Self.insertEventSQL)
        insertRejected = try database.prepare(Self.insertRejectedSQL)
        insertBatch = try database.prepare(Self.insertBatchSQL)
        upsertFirstSeen = try database.prepare(InstallFirstSeen.upsertSQL)
        // A strong reference: the thread keeps the writer alive until `close()` lets `run()`
        // return. With `unowned`, a store opened and dropped at once (`handz-analytics stats`) could
        // be freed before the thread's first read of `self` — a crash CI caught (3 in 30 runs here).
        let thread = Thread { [self] in self.run() }
        thread.name = "handz-store-writer"
        self.thread = thread
        thread.start()
    }

    /// One insert of every column of `events` (`EventColumn`), in table order: column N is
    /// parameter N + 1 (``parameter(_:)``). A row whose event_id is stored already is skipped: the
    /// conflict clause names the unique index, so only a duplicate is skipped. (`INSERT OR IGNORE`
    /// also skipped a row that broke NOT NULL, silently, while its receipt counted it stored; now
    /// such a row fails its commit, which answers 503 and stores none of it.)
    static let insertEventSQL = "INSERT INTO \(EventColumn.tableName)(\(EventColumn.allCases.map(\.name).joined(separator: ", "))) VALUES ("
        + EventColumn.allCases.map { "?\($0.rawValue + 1)" }.joined(separator: ", ") + ") ON CONFLICT(event_id) DO NOTHING"

    static func parameter(_ column: EventColumn) -> Int32 { Int32(column.rawValue + 1) }

    static let insertRejectedSQL = "INSERT INTO rejected_events(received_time_ms, key_id, event_name, error_codes, errors, byte_size) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
    static let insertBatchSQL = "INSERT INTO batches(received_time_ms, key_id, sent_at_ms, events, accepted, duplicates, rejected, body_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"

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

    /// Copies the WAL into the database and empties it, as the writer stops. Without it a large
    /// WAL (a migration, a long import) outlived the process — the writer's connection is not
    /// closed before exit — and every later process that opened the store read the whole WAL to
    /// rebuild its index first: 0.13 s of `funnel F0`'s 0.30 s behind a 300 MB WAL (issue 33).
    /// Never waits: with a reader in a snapshot (`serve`'s seal) the WAL stays, for the next
    /// writer to checkpoint.
    private func truncateWAL() {
        _ = try? database.execute("PRAGMA busy_timeout = 0")
        _ = try? database.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !closing { condition.wait() }
            if queue.isEmpty && closing {
                condition.unlock()
                truncateWAL()
                condition.lock()
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
            let inserted = try insertEvents(taken.map(\.batch))
            for (pending, flags) in zip(taken, inserted) { results.append(try writeReceipt(pending.batch, inserted: flags)) }
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

    /// Inserts the events of every batch of one commit in one pass, binding in place from one
    /// merged buffer, then the first-seen times of the installs whose `app_open`s were new (one
    /// upsert per install, ``InstallFirstSeen``). Returns, per batch and row, whether the row was
    /// new. (Inserting in event_id order was tried and measured slower: it scatters each batch's
    /// rows across the other indexes.)
    private func insertEvents(_ batches: [IngestBatch]) throws -> [[Bool]] {
        var rows = EventRows(capacity: batches.reduce(0) { $0 + $1.rows.count })
        var owner: [(batch: Int, row: Int)] = []
        for (index, batch) in batches.enumerated() {
            rows.append(contentsOf: batch.rows)
            owner += (0..<batch.rows.count).map { (index, $0) }
        }
        var inserted = batches.map { [Bool](repeating: false, count: $0.rows.count) }
        var firstSeen = InstallFirstSeen.Pending()
        let statement = insertEvent
        // Reset and clear on every exit, thrown or returned: a statement left mid-step refuses
        // every later bind, and the writer would answer 503 to every batch until a restart.
        defer { statement.reset() }
        try rows.bytes.withUnsafeBytes { text in
            try rows.eventIDs.withUnsafeBytes { ids in
                var currentBatch = -1
                for row in 0..<rows.count {
                    let (batchIndex, rowIndex) = owner[row]
                    if batchIndex != currentBatch {
                        currentBatch = batchIndex
                        try statement.bindInt(batches[batchIndex].receivedTimeMs, at: Self.parameter(.receivedTimeMs))
                        try statement.bind(.text(batches[batchIndex].keyID), at: Self.parameter(.keyID))
                        try statement.bind(.text(batches[batchIndex].catalogVersion), at: Self.parameter(.catalogVersion))
                    }
                    try statement.bindBlob(UnsafeRawBufferPointer(rebasing: ids[(row * 16)..<(row * 16 + 16)]), at: Self.parameter(.eventID))
                    try statement.bindInt(rows.eventTimes[row], at: Self.parameter(.eventTimeMs))
                    for field in EventRows.fields {
                        let index = Self.parameter(field)
                        let span = rows.span(row, field)
                        if span.length >= 0 {
                            try statement.bindText(UnsafeRawBufferPointer(rebasing: text[span.offset..<(span.offset + span.length)]), at: index)
                        } else {
                            try statement.bindNull(at: index)
                        }
                    }
                    try statement.step()
                    let new = database.changes == 1
                    inserted[batchIndex][rowIndex] = new
                    statement.resetKeepingBindings()
                    // Only a stored app_open counts (a duplicate's time is the stored copy's).
                    let name = rows.span(row, .eventName)
                    if new && text[name.offset..<(name.offset + max(0, name.length))].elementsEqual(InstallFirstSeen.appOpen) {
                        let install = rows.span(row, .installID)
                        firstSeen.add(install: String(decoding: UnsafeRawBufferPointer(rebasing: text[install.offset..<(install.offset + max(0, install.length))]), as: UTF8.self),
                                      eventTimeMs: rows.eventTimes[row], receivedMs: batches[batchIndex].receivedTimeMs)
                    }
                }
            }
        }
        for (install, times) in firstSeen.byInstall {
            try upsertFirstSeen.run([.text(install), .integer(times.first), .integer(times.last)])
        }
        return inserted
    }

    /// Writes a batch's quarantine records and its receipt row.
    private func writeReceipt(_ batch: IngestBatch, inserted: [Bool]) throws -> AppendResult {
        let result = AppendResult(inserted: inserted)
        try Self.writeReceipt(receivedTimeMs: batch.receivedTimeMs, keyID: batch.keyID, sentAtMs: batch.sentAtMs, bodyBytes: batch.bodyBytes,
                              accepted: result.accepted, duplicates: result.duplicates, rejected: batch.rejected,
                              insertRejected: insertRejected, insertBatch: insertBatch)
        return result
    }

    /// A request's quarantine records (where and why, never what) and its receipt row: the
    /// writer's, and the segment log's when its requests are sealed (``SQLiteEventStore/recordSealed(_:segment:)``).
    static func writeReceipt(receivedTimeMs: Int64, keyID: String, sentAtMs: Int64?, bodyBytes: Int, accepted: Int, duplicates: Int,
                             rejected: [RejectedEventRecord], insertRejected: SQLiteStatement, insertBatch: SQLiteStatement) throws {
        for record in rejected {
            let codes = Array(Set(record.errors.map(\.code))).sorted().joined(separator: ",")
            let errors = "[" + record.errors.map { "{\"code\":\"\($0.code)\",\"path\":\(Self.quote($0.path))}" }.joined(separator: ",") + "]"
            try insertRejected.run([
                .integer(receivedTimeMs), .text(keyID), record.eventName.map { .text($0) } ?? .null,
                .text(codes), .text(errors), .integer(Int64(record.byteSize)),
            ])
        }
        try insertBatch.run([
            .integer(receivedTimeMs), .text(keyID), sentAtMs.map { .integer($0) } ?? .null,
            .integer(Int64(accepted + duplicates + rejected.count)), .integer(Int64(accepted)),
            .integer(Int64(duplicates)), .integer(Int64(rejected.count)), .integer(Int64(bodyBytes)),
        ])
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

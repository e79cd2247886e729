import Foundation
import HandzAnalyticsCore
import HandzSQLite

/// The embedded event store: one SQLite file in WAL mode.
///
/// Writes go through a single writer thread that groups concurrent requests into one
/// transaction (group commit): a request is answered only after the transaction holding its
/// events has committed, so "200 only after commit" holds while many requests share one fsync.
/// Dedupe is the unique index on the 16-byte `event_id`: `ON CONFLICT(event_id) DO NOTHING` stores
/// each id once, however often it is sent, and tells the writer which rows were duplicates; a row
/// that breaks any other constraint fails the commit instead of vanishing.
///
/// Maintenance (stats, forget-user, purge) uses its own connections; SQLite's locking and the busy
/// timeout keep them consistent with the writer, from this process or another.
public final class SQLiteEventStore: @unchecked Sendable {
    public let path: String
    public let configuration: StoreConfiguration
    private let writer: StoreWriter

    /// Opens (creating and migrating if needed) the store at `path` and starts its writer.
    public init(path: String, configuration: StoreConfiguration = StoreConfiguration()) throws {
        self.path = path
        self.configuration = configuration
        try Self.createPrivately(path)
        let database = try Self.open(path: path, configuration: configuration)
        try StoreSchema.migrate(database, nowMs: Self.nowMs())
        // Checkpoint when the WAL passes ~40 MB rather than SQLite's default ~8 MB: fewer, larger
        // checkpoints measured ~50% more write throughput (BENCHMARKS.md).
        try database.execute("PRAGMA wal_autocheckpoint = 5000")
        if let bytes = configuration.maxDatabaseBytes {
            // Pages of the file's own size (an older file may not use 8 KiB pages); at least the
            // pages already in use, which SQLite requires.
            let pageSize = max(512, try database.scalar("PRAGMA page_size") ?? 8192)
            try database.execute("PRAGMA max_page_count = \(max(1, Int64(bytes) / pageSize))")
        }
        writer = try StoreWriter(database: database, configuration: configuration)
    }

    /// Creates the database file readable and writable by its owner only (0600; CH33 §10 "store
    /// analytics data with least privilege"). SQLite gives the `-wal` and `-shm` files it creates
    /// later the same mode. An existing file keeps the mode its operator chose.
    static func createPrivately(_ path: String) throws {
        if !createOwnerOnly(path) && errno != EEXIST {
            throw StoreError.unavailable("cannot create the database file")
        }
    }

    /// A connection with the store's settings.
    static func open(path: String, configuration: StoreConfiguration) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path)
        // 8 KiB pages: measured faster than 4 KiB for this write pattern (BENCHMARKS.md).
        try database.execute("PRAGMA page_size = 8192")
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = \(configuration.synchronous == .full ? "FULL" : "NORMAL")")
        try database.execute("PRAGMA foreign_keys = ON")
        // Deleted and overwritten content is zeroed, so forget-user and purge leave no trace in the file.
        try database.execute("PRAGMA secure_delete = ON")
        try database.execute("PRAGMA cache_size = -\(configuration.cacheMiB * 1024)")
        try database.execute("PRAGMA temp_store = MEMORY")
        try database.registerUUIDFunctions()
        return database
    }

    public static func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Stores one request's events and quarantine records atomically; returns once committed.
    public func append(_ batch: IngestBatch) async throws(StoreError) -> AppendResult {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                writer.enqueue(batch, continuation)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .unavailable("write failed")
        }
    }

    /// Whether the writer is running and its last commit (if any) succeeded.
    public var isHealthy: Bool { writer.isHealthy }

    /// Rows waiting for the writer.
    public var queuedRows: Int { writer.queuedRows }

    /// Finishes the queued writes, then stops the writer. Later appends fail with `closed`.
    public func closeNow() {
        writer.close()
    }

    /// Benchmark support: drop named indexes to measure what each costs.
    public func dropIndexesForBenchmark(_ names: [String]) throws {
        try withConnection { database in
            for name in names where name.allSatisfy({ $0.isLetter || $0 == "_" }) { try database.execute("DROP INDEX IF EXISTS \(name)") }
        }
    }

    // MARK: Maintenance

    func withConnection<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        try body(try Self.open(path: path, configuration: configuration))
    }

    /// ``EventStore/exportEvents(receivedFromMs:toMs:_:)`` on the calling thread, one row at a time
    /// from a read transaction (a consistent snapshot while the writer goes on).
    public func exportEventsNow(receivedFromMs fromMs: Int64, toMs: Int64, _ body: (ExportedEvent) throws -> Void) throws {
        try withConnection { database in
            try database.transaction("DEFERRED") {
                let statement = try database.prepare("""
                    SELECT \(ExportedEvent.selectList(eventID: "event_id", properties: "properties"))
                    FROM events WHERE received_time_ms >= ?1 AND received_time_ms < ?2 \(ExportOrder.sql)
                    """)
                defer { statement.reset() }
                try statement.bind([.integer(fromMs), .integer(toMs)])
                while try statement.step() {
                    let id = statement.blob(0)
                    var event = ExportedEvent.read(text: { statement.text(Int32($0)) }, integer: { statement.int64(Int32($0)) })
                    event[.eventID] = .text(id.count == 16 ? UUIDText.canonical(id) : "")
                    try body(event)
                }
            }
        }
    }

    /// Counts over `[fromMs, toMs)` of receive time.
    public func stats(fromMs: Int64 = .min, toMs: Int64 = .max) throws -> StoreStats {
        try withConnection { database in
            var stats = StoreStats()
            let totals = try database.prepare("""
                SELECT COUNT(*), COALESCE(SUM(accepted), 0), COALESCE(SUM(duplicates), 0)
                FROM batches WHERE received_time_ms >= ?1 AND received_time_ms < ?2
                """)
            _ = try totals.query([.integer(fromMs), .integer(toMs)]) { row in
                stats.requests = Int(row.int64(0))
                stats.accepted = Int(row.int64(1))
                stats.duplicates = Int(row.int64(2))
            }
            let rejected = try database.prepare("SELECT error_codes FROM rejected_events WHERE received_time_ms >= ?1 AND received_time_ms < ?2")
            for codes in try rejected.query([.integer(fromMs), .integer(toMs)], { $0.text(0) ?? "" }) {
                stats.rejected += 1
                for code in codes.split(separator: ",") { stats.rejectedByCode[String(code), default: 0] += 1 }
            }
            stats.storedEvents = Int(try database.scalar("SELECT COUNT(*) FROM events WHERE received_time_ms >= ?1 AND received_time_ms < ?2",
                                                         [.integer(fromMs), .integer(toMs)]) ?? 0)
            return stats
        }
    }

    /// Deletes what was received before `cutoffMs` (the retention period, CH33-P3; issue 14 §4):
    /// events, quarantine records, batch receipts, completed deletion requests, audit rows, and
    /// the first-seen times of installs with no `app_open` received since (``InstallFirstSeen``).
    /// The new audit row keeps the counts; `eventsRemovedElsewhere` are events the segment engine
    /// removed from its chunks for the same cutoff (issue 34), counted with the table's.
    @discardableResult
    public func purge(receivedBeforeMs cutoffMs: Int64, nowMs: Int64 = SQLiteEventStore.nowMs(), eventsRemovedElsewhere: Int = 0) throws -> PurgeResult {
        try withConnection { database in
            let result = try database.transaction {
                var result = PurgeResult()
                let changesBefore = try LogChanges.current(database)
                try database.prepare("DELETE FROM events WHERE received_time_ms < ?1").run([.integer(cutoffMs)])
                result.events = database.changes + eventsRemovedElsewhere
                // The column copy drops the same rows from its chunks (LogRewrites).
                try LogRewrites.purge(database, recordedBeforeMs: cutoffMs)
                try LogRewrites.record(database, before: changesBefore, nowMs: nowMs, receivedBeforeMs: cutoffMs)
                // First-seen times stay while their install has an app_open left (issue 32 §6).
                try database.prepare(InstallFirstSeen.purgeSQL).run([.integer(cutoffMs)])
                try database.prepare("DELETE FROM rejected_events WHERE received_time_ms < ?1").run([.integer(cutoffMs)])
                result.rejectedEvents = database.changes
                try database.prepare("DELETE FROM batches WHERE received_time_ms < ?1").run([.integer(cutoffMs)])
                result.batches = database.changes
                try database.prepare("DELETE FROM deletion_requests WHERE state = 'completed' AND completed_time_ms < ?1").run([.integer(cutoffMs)])
                result.deletionRequests = database.changes
                try database.prepare("DELETE FROM privacy_audit WHERE performed_time_ms < ?1").run([.integer(cutoffMs)])
                result.auditEntries = database.changes
                try database.prepare("INSERT INTO privacy_audit(performed_time_ms, action, rows_affected, detail) VALUES (?1, 'purge', ?2, ?3)")
                    .run([.integer(nowMs), .integer(Int64(result.events)), .text("received before \(cutoffMs) ms")])
                return result
            }
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return result
        }
    }
}

/// Creates `path` with mode 0600 if it does not exist (`open(2)` with `O_CREAT | O_EXCL`; outside
/// the class, whose `open` and `close` are other functions). False with `errno` set otherwise.
private func createOwnerOnly(_ path: String) -> Bool {
    let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return false }
    close(descriptor)
    return true
}

/// What the ingestion endpoint needs from a store, whatever the engine: the embedded SQLite store
/// (`SQLiteEventStore`, one node) or PostgreSQL (`PostgresEventStore`, many nodes). Both keep the
/// same guarantees, checked by the same tests: `append` returns only after the batch committed;
/// an `event_id` is stored once across every node; forget-user and purge leave nothing behind.
public protocol EventStore: AnyObject, Sendable {
    /// Stores one request's events and quarantine records atomically; returns once committed.
    func append(_ batch: IngestBatch) async throws(StoreError) -> AppendResult
    /// Whether the store can currently write.
    var isHealthy: Bool { get }
    /// Finishes queued writes and stops; later appends fail with `closed`.
    func close() async
    /// Counts over `[fromMs, toMs)` of receive time.
    func stats(fromMs: Int64, toMs: Int64) async throws -> StoreStats
    /// Unlinks a user_id from every stored event (CH33 §9, CH34 §8.3); returns events unlinked.
    func forgetUser(_ userID: String, nowMs: Int64) async throws -> Int
    /// Deletes what was received before the cutoff (CH33-P3).
    func purge(receivedBeforeMs: Int64, nowMs: Int64) async throws -> PurgeResult
    /// A short name for logs and health: "sqlite" or "postgres".
    var engine: String { get }
    /// Hands every event received in `[fromMs, toMs)` to `body`, in (received_time_ms, event_id)
    /// order, reading in a stream (memory does not grow with the range). For the lake export.
    func exportEvents(receivedFromMs fromMs: Int64, toMs: Int64, _ body: @escaping @Sendable (ExportedEvent) throws -> Void) async throws
}

extension SQLiteEventStore: EventStore {
    public var engine: String { "sqlite" }

    public func close() async {
        await Task.detached { self.closeNow() }.value
    }

    public func stats(fromMs: Int64, toMs: Int64) async throws -> StoreStats {
        try await Task.detached { try self.stats(fromMs: fromMs, toMs: toMs) as StoreStats }.value
    }

    public func forgetUser(_ userID: String, nowMs: Int64) async throws -> Int {
        try await Task.detached { try self.forgetUser(userID, nowMs: nowMs) as Int }.value
    }

    public func purge(receivedBeforeMs: Int64, nowMs: Int64) async throws -> PurgeResult {
        try await Task.detached { try self.purge(receivedBeforeMs: receivedBeforeMs, nowMs: nowMs) as PurgeResult }.value
    }

    public func exportEvents(receivedFromMs fromMs: Int64, toMs: Int64, _ body: @escaping @Sendable (ExportedEvent) throws -> Void) async throws {
        try await Task.detached { try self.exportEventsNow(receivedFromMs: fromMs, toMs: toMs, body) }.value
    }
}

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
    /// Deletes what was received before the cutoff (CH33-P3).
    func purge(receivedBeforeMs: Int64, nowMs: Int64) async throws -> PurgeResult
    /// A short name for logs and health: "sqlite" or "postgres".
    var engine: String { get }
    /// Hands every event received in `[fromMs, toMs)` to `body`, in (received_time_ms, event_id)
    /// order, reading in a stream (memory does not grow with the range). For the lake export.
    func exportEvents(receivedFromMs fromMs: Int64, toMs: Int64, _ body: @escaping @Sendable (ExportedEvent) throws -> Void) async throws

    // MARK: The deletion ledger (issue 14; CH33 §9, CH34 §8). `HandzLifecycle.DeletionWorker` drives it.

    /// Records a request to delete `userID`, or returns the request that already covers it.
    func requestDeletion(userID: String, nowMs: Int64) async throws -> (request: DeletionRequest, created: Bool)
    func deletionRequest(id: String) async throws -> DeletionRequest?
    /// The newest `limit` requests.
    func deletionRequests(limit: Int) async throws -> [DeletionRequest]
    /// Notes that a lake is written from this store: new requests get a lake step.
    func registerLake() async throws
    /// Leases the oldest request this worker can advance; nil when there is none.
    func claimDeletion(owner: String, canRewriteLake: Bool, oldVersionsDueMs: Int64, storeDueMs: Int64, nowMs: Int64, leaseMs: Int64) async throws -> DeletionClaim?
    /// The store step, in one transaction (``Deidentification``).
    func deidentify(_ claim: DeletionClaim, nowMs: Int64) async throws -> DeidentifyResult
    /// Reclaims old row versions for every request whose store step ran by `nowMs`; returns how many
    /// requests that finished. Throws ``DeletionFailure/vacuumNotPermitted`` when the role may not.
    func reclaimOldVersions(nowMs: Int64) async throws -> Int
    /// Extends `owner`'s lease during long work; false when the lease is no longer `owner`'s.
    func renewDeletionLease(id: String, owner: String, untilMs: Int64) async throws -> Bool
    func finishLakeStep(id: String, partitions: Int) async throws
    /// Completes the request when every step is finished and releases its lease.
    func settleDeletion(id: String, failure: DeletionFailure?, nowMs: Int64) async throws -> DeletionRequest?
    /// The audit salt and the subject hashes of requests received since `sinceMs` (``DeletedSubjects``).
    func deletedSubjects(receivedSinceMs sinceMs: Int64) async throws -> (salt: [UInt8], hashes: Set<String>)
    /// Pending deletions, and (a full scan: only when asked) the oldest stored event.
    func lifecycleStatus(includeOldestEvent: Bool) async throws -> LifecycleStatus
}

extension DeletionFailure: Error {}

extension SQLiteEventStore: EventStore {
    public var engine: String { "sqlite" }

    public func close() async {
        await Task.detached { self.closeNow() }.value
    }

    public func stats(fromMs: Int64, toMs: Int64) async throws -> StoreStats {
        try await Task.detached { try self.stats(fromMs: fromMs, toMs: toMs) as StoreStats }.value
    }

    public func purge(receivedBeforeMs: Int64, nowMs: Int64) async throws -> PurgeResult {
        try await Task.detached { try self.purge(receivedBeforeMs: receivedBeforeMs, nowMs: nowMs) as PurgeResult }.value
    }

    public func exportEvents(receivedFromMs fromMs: Int64, toMs: Int64, _ body: @escaping @Sendable (ExportedEvent) throws -> Void) async throws {
        try await Task.detached { try self.exportEventsNow(receivedFromMs: fromMs, toMs: toMs, body) }.value
    }

    /// Runs a blocking SQLite call off the cooperative pool.
    private func off<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await Task.detached(operation: body).value
    }

    public func requestDeletion(userID: String, nowMs: Int64) async throws -> (request: DeletionRequest, created: Bool) {
        try await off { try self.requestDeletionNow(userID: userID, nowMs: nowMs) }
    }

    public func deletionRequest(id: String) async throws -> DeletionRequest? { try await off { try self.deletionRequestNow(id: id) } }

    public func deletionRequests(limit: Int) async throws -> [DeletionRequest] { try await off { try self.deletionRequestsNow(limit: limit) } }

    public func registerLake() async throws { try await off { try self.registerLakeNow() } }

    public func claimDeletion(owner: String, canRewriteLake: Bool, oldVersionsDueMs: Int64, storeDueMs: Int64, nowMs: Int64, leaseMs: Int64) async throws -> DeletionClaim? {
        try await off {
            try self.claimDeletionNow(owner: owner, canRewriteLake: canRewriteLake, oldVersionsDueMs: oldVersionsDueMs, storeDueMs: storeDueMs, nowMs: nowMs, leaseMs: leaseMs)
        }
    }

    public func deidentify(_ claim: DeletionClaim, nowMs: Int64) async throws -> DeidentifyResult {
        try await off { try self.deidentifyNow(claim, nowMs: nowMs) }
    }

    public func reclaimOldVersions(nowMs: Int64) async throws -> Int { try await off { try self.reclaimOldVersionsNow(nowMs: nowMs) } }

    public func finishLakeStep(id: String, partitions: Int) async throws { try await off { try self.finishLakeStepNow(id: id, partitions: partitions) } }

    public func deletedSubjects(receivedSinceMs sinceMs: Int64) async throws -> (salt: [UInt8], hashes: Set<String>) {
        try await off { try self.deletedSubjectsNow(receivedSinceMs: sinceMs) }
    }

    public func renewDeletionLease(id: String, owner: String, untilMs: Int64) async throws -> Bool {
        try await off { try self.renewDeletionLeaseNow(id: id, owner: owner, untilMs: untilMs) }
    }

    public func settleDeletion(id: String, failure: DeletionFailure?, nowMs: Int64) async throws -> DeletionRequest? {
        try await off { try self.settleDeletionNow(id: id, failure: failure, nowMs: nowMs) }
    }

    public func lifecycleStatus(includeOldestEvent: Bool) async throws -> LifecycleStatus {
        try await off { try self.lifecycleStatusNow(includeOldestEvent: includeOldestEvent) }
    }
}

import HandzLake
import HandzStore

/// Carries deletion requests to completion (issue 14 §1–§3; CH34 §8.1: 30 days at most, 24 hours
/// the target). `serve` runs one on every node; `forget-user` runs one inline.
///
/// A request moves through three steps, each idempotent, each recorded in the ledger when done:
/// 1. **store** — the store de-identifies the user's past in one transaction (``Deidentification``)
///    and forgets the user id it kept for the request;
/// 2. **old versions** — what still holds the old bytes is reclaimed: SQLite's write-ahead log is
///    truncated (its pages were zeroed by `secure_delete`); PostgreSQL's dead row versions are
///    rewritten away by `VACUUM FULL`, batched after `oldVersionsDelayMs`;
/// 3. **lake** — every partition that held the changed rows is rebuilt from the store and replaced
///    atomically with a new manifest (``LakeExporter``), by a worker that has the lake.
///
/// A worker leases a request before working it, so among nodes sharing one PostgreSQL store exactly
/// one works a request at a time; a worker that dies (kill -9) loses its lease after `leaseMs` and
/// another — or the same one restarted — redoes the unfinished steps.
public struct DeletionWorker: Sendable {
    public let store: any EventStore
    /// The lake this worker rewrites, if it has one.
    public let lake: LakeExporter?
    /// Who holds a lease: host and process, for the ledger.
    public let owner: String
    /// How long a lease lasts; the worker renews it after every partition, so it only has to
    /// outlast one step of work. A worker that died frees its requests after this long.
    public var leaseMs: Int64 = 5 * 60_000
    /// How long a finished store step waits before old versions are reclaimed, so one `VACUUM FULL`
    /// covers many requests (0 on SQLite, where the step is cheap).
    public var oldVersionsDelayMs: Int64 = 0
    /// How long a new request waits before its store step: long enough for every node to have
    /// refreshed its ``DeletedSubjects`` (the server sets two deletion intervals), so no node
    /// stores the user's id after the step. 0 for `forget-user` and tests.
    public var storeStepDelayMs: Int64 = 0
    /// Fault injection for tests: called with the count of partitions rewritten so far, after
    /// each (`serve --fault-kill-after-partitions` kills the process there).
    public var afterPartition: (@Sendable (Int) async -> Void)?
    /// Brings the store's copies up to date after its store step: the embedded store's column copy
    /// rewrites the chunks the step changed (issue 33 §4). It runs before the old-versions step,
    /// which removes a copy still behind (HandzStore's `ColumnStoreCopy`); a failure here only
    /// costs that copy a rebuild.
    public var afterStoreStep: (@Sendable () async throws -> Void)?
    public var clock: @Sendable () -> Int64

    public init(store: any EventStore, lake: LakeExporter?, owner: String, clock: @escaping @Sendable () -> Int64) {
        self.store = store
        self.lake = lake
        self.owner = owner
        self.clock = clock
    }

    /// What one pass over a request did.
    public struct Outcome: Sendable {
        public var request: DeletionRequest?
        public var failure: DeletionFailure?
    }

    /// Works requests until none can be advanced now (or `limit` passes); returns what each pass did.
    public func runUntilIdle(limit: Int = 1_000) async throws -> [Outcome] {
        var outcomes: [Outcome] = []
        for _ in 0..<limit {
            let now = clock()
            guard let claim = try await store.claimDeletion(owner: owner, canRewriteLake: lake != nil,
                                                            oldVersionsDueMs: now - oldVersionsDelayMs, storeDueMs: now - storeStepDelayMs,
                                                            nowMs: now, leaseMs: leaseMs) else { break }
            outcomes.append(try await work(claim))
        }
        return outcomes
    }

    /// Advances one leased request as far as this worker can, then settles it.
    public func work(_ claim: DeletionClaim) async throws -> Outcome {
        var request = claim.request
        var failure: DeletionFailure?
        do {
            if request.storeStep == .pending {
                let result = try await store.deidentify(claim, nowMs: clock())
                request.storeStep = .done
                request.lakeHours = result.hours
                try? await afterStoreStep?()
            }
            if request.oldVersionsStep == .pending, (request.storeDoneMs ?? clock()) <= clock() - oldVersionsDelayMs {
                do {
                    _ = try await store.reclaimOldVersions(nowMs: clock())
                } catch let denied as DeletionFailure {
                    failure = denied
                }
            }
            if request.lakeStep == .pending, let lake {
                do {
                    let partitions = try await rewriteLake(lake, hours: request.lakeHours, requestID: request.id)
                    try await store.finishLakeStep(id: request.id, partitions: partitions)
                } catch {
                    failure = .lakeWriteFailed
                }
            }
        } catch {
            failure = .storeUnavailable
        }
        let settled = try await store.settleDeletion(id: request.id, failure: failure, nowMs: clock())
        return Outcome(request: settled, failure: failure)
    }

    struct LeaseLost: Error {}

    /// Rebuilds each complete hour's partition from the store (already de-identified). An hour
    /// still running is rebuilt only if a partition of it is already on disk (a manual `export
    /// lake --to` the next hour writes one); otherwise the lake's own schedule, which exports
    /// complete hours only, writes it later from the de-identified store.
    func rewriteLake(_ lake: LakeExporter, hours: [Int64], requestID: String) async throws -> Int {
        let currentHour = Deidentification.hour(clock())
        let onDisk = Set(try lake.existingPartitions().map { $0.startMs / LakePartition.hourMs })
        var written = 0
        for hour in hours where hour < currentHour || onDisk.contains(hour) {
            let summary = try await lake.export(from: store, receivedFromMs: hour * LakePartition.hourMs, toMs: (hour + 1) * LakePartition.hourMs)
            written += summary.written + summary.removed
            guard try await store.renewDeletionLease(id: requestID, owner: owner, untilMs: clock() + leaseMs) else { throw LeaseLost() }
            await afterPartition?(written)
        }
        return written
    }
}

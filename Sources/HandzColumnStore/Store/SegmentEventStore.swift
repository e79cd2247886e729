import Foundation
import HandzAnalyticsCore
import HandzStore

/// The embedded store with the segment log as its write path (issue 34; `serve --engine segments`):
/// accepted requests are appended to checksummed segment files by one group-commit writer
/// (``SegmentWriter``: one `write` and one `fdatasync` per group, the 200 only after it), dedupe
/// is exact by ``EventIDIndex`` (no B-tree insert per event), and segments are sealed into the
/// column store beside the SQLite file (``seal(into:maxPartsPerDay:rowsPerPart:)``, run by `serve`'s ``LiveColumnStore`` every
/// second and before each page), which then removes them. SQLite keeps what is small and
/// relational: keys' receipts, the quarantine, first-seen times, the deletion ledger, the audit.
///
/// Files beside `PATH` (the SQLite file): `PATH.segments/` (the log), `PATH.ids/` (the id runs),
/// `PATH.columns/` (the chunks, as for the SQLite log).
///
/// **Preview.** This slice covers ingestion, sealing, receipts and `stats`. Forget-user, purge and
/// the lake export still work only on the SQLite log: here they refuse with `store_unavailable`
/// and a reason, so a deletion is never reported done while the user's events stay in the chunks.
public final class SegmentEventStore: EventStore, @unchecked Sendable {
    public let path: String
    /// The store's SQLite file: receipts, quarantine, first-seen times, the ledger.
    public let tables: SQLiteEventStore
    public let index: EventIDIndex
    private let writer: SegmentWriter
    public var segmentsDirectory: String { Self.segmentsDirectory(forDatabase: path) }

    public static func segmentsDirectory(forDatabase path: String) -> String { path + ".segments" }
    public static func idsDirectory(forDatabase path: String) -> String { path + ".ids" }

    /// Opens the store at `path` (creating it when missing), recovering the segment log (a torn
    /// tail cut, with a line to `log`) and taking the ids of the segments not yet sealed back into
    /// memory, so dedupe stays exact across the restart.
    public init(path: String, configuration: StoreConfiguration = StoreConfiguration(), limits: SegmentWriter.Limits = SegmentWriter.Limits(),
                log: (String) -> Void = { _ in }) throws {
        self.path = path
        tables = try SQLiteEventStore(path: path, configuration: configuration)
        index = try EventIDIndex(directory: Self.idsDirectory(forDatabase: path))
        let segments = try SegmentLog(directory: Self.segmentsDirectory(forDatabase: path), log: log)
        for segment in segments.segments {
            for record in try segments.records(of: segment) {
                index.addPending((0..<record.rows.count).map { row in record.rows.eventID(row).withUnsafeBytes { UUIDWords(orderingBytes: $0) } })
            }
        }
        writer = SegmentWriter(log: segments, index: index, limits: limits)
    }

    public var engine: String { "segments" }

    public var isHealthy: Bool { writer.isHealthy && tables.isHealthy }

    public func append(_ batch: IngestBatch) async throws(StoreError) -> AppendResult {
        do {
            return try await writer.append(batch)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .unavailable("write failed")
        }
    }

    public func close() async {
        await Task.detached { [writer, tables] in
            writer.close()
            tables.closeNow()
        }.value
    }

    /// Whether frames wait in the segments: the open one, or closed ones not sealed yet.
    public func hasUnsealedEvents() throws -> Bool {
        try writer.withLog { log in log.openSegment.bytes > SegmentLayout.headerBytes || !log.closedSegments.isEmpty }
    }

    /// Closes the open segment and seals every closed one into `columns` (whose writer the caller
    /// holds), recording their requests in the SQLite tables, then removes them.
    ///
    /// Parts every 250,000 rows (about 50 MiB of builders): the SQLite log's live seal writes them
    /// every 20,000 to keep `serve` small, but a second of segments at 50,000 events/s then made
    /// about a hundred part files a seal, and creating files was a fifth of the seal's time (perf:
    /// ext4's inode search), so the seal fell behind the load.
    @discardableResult
    public func seal(into columns: ColumnStoreWriter, maxPartsPerDay: Int = 8, rowsPerPart: Int = 250_000) throws -> SegmentSealer.Outcome {
        let closed = try writer.withLog { log in
            try log.roll()
            return log.closedSegments
        }
        var sealer = SegmentSealer()
        sealer.maxPartsPerDay = maxPartsPerDay
        sealer.rowsPerPart = rowsPerPart
        let outcome = try sealer.seal(closed, directory: segmentsDirectory, into: columns, index: index,
                                      sealed: { records, segment in try self.tables.recordSealed(records.map(Self.sealedRequest), segment: segment) },
                                      remove: { through in try self.writer.withLog { try $0.remove(through: through) } })
        try index.compact()
        return outcome
    }

    static func sealedRequest(_ record: BatchRecord) -> SealedRequest {
        var appOpens: [(install: String, eventTimeMs: Int64)] = []
        for row in 0..<record.rows.count where record.rows.string(row, .eventName) == "app_open" {
            if let install = record.rows.string(row, .installID) { appOpens.append((install, record.rows.eventTimes[row])) }
        }
        return SealedRequest(receivedTimeMs: record.receivedTimeMs, keyID: record.keyID, sentAtMs: record.sentAtMs, bodyBytes: record.bodyBytes,
                             accepted: record.rows.count, duplicates: record.duplicates, rejected: record.rejected, appOpens: appOpens)
    }

    // MARK: Counts

    /// The sealed requests' counts from the tables, the stored events from the chunks, and what
    /// still waits in the segments (read up to their last whole frame, beside the writer).
    public func stats(fromMs: Int64, toMs: Int64) async throws -> StoreStats {
        try await Task.detached { [path, tables] in try Self.stats(path: path, tables: tables, fromMs: fromMs, toMs: toMs) }.value
    }

    /// ``stats(fromMs:toMs:)`` for a store another process may be writing (`handz-analytics stats`
    /// beside `serve`): the segments are only read.
    public static func stats(path: String, tables: SQLiteEventStore, fromMs: Int64, toMs: Int64) throws -> StoreStats {
        var stats = try tables.stats(fromMs: fromMs, toMs: toMs)
        // Stored events are the chunks' (the SQLite log's rows too, once `serve` sealed them) and
        // the segments' not sealed yet.
        stats.storedEvents = 0
        let store = try ColumnStore(directory: ColumnStore.directory(forDatabase: path))
        for entry in store.manifest.chunks {
            if fromMs == .min && toMs == .max {
                stats.storedEvents += entry.rows
            } else if case .times(let received)? = try store.chunk(entry).column(ColumnName.receivedTime) {
                stats.storedEvents += received.lazy.filter { $0 >= fromMs && $0 < toMs }.count
            }
        }
        let directory = segmentsDirectory(forDatabase: path)
        let sealedThrough = store.manifest.sealedThroughSegment
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard let sequence = SegmentLayout.sequence(fileName: name), sequence > sealedThrough else { continue }
            // A segment being written or removed meanwhile reads as what it held when read.
            guard let records = try? SegmentLog.records(path: directory + "/" + name, name: name) else { continue }
            for record in records where record.receivedTimeMs >= fromMs && record.receivedTimeMs < toMs {
                stats.requests += 1
                stats.accepted += record.rows.count
                stats.storedEvents += record.rows.count
                stats.duplicates += record.duplicates
                stats.rejected += record.rejected.count
                for rejected in record.rejected {
                    for code in Set(rejected.errors.map(\.code)) { stats.rejectedByCode[code, default: 0] += 1 }
                }
            }
        }
        return stats
    }

    // MARK: Not yet on the segment engine (issue 34, later slices)

    static let preview = "not yet available on the segment engine (issue 34): run the SQLite engine for it"

    public func purge(receivedBeforeMs: Int64, nowMs: Int64) async throws -> PurgeResult { throw StoreError.unavailable("purge " + Self.preview) }

    public func exportEvents(receivedFromMs fromMs: Int64, toMs: Int64, _ body: @escaping @Sendable (ExportedEvent) throws -> Void) async throws {
        throw StoreError.unavailable("export " + Self.preview)
    }

    public func requestDeletion(userID: String, nowMs: Int64) async throws -> (request: DeletionRequest, created: Bool) {
        throw StoreError.unavailable("forget-user " + Self.preview)
    }

    public func registerLake() async throws { throw StoreError.unavailable("the lake " + Self.preview) }

    // MARK: The ledger, as the SQLite file keeps it

    public func deletionRequest(id: String) async throws -> DeletionRequest? { try await tables.deletionRequest(id: id) }
    public func deletionRequests(limit: Int) async throws -> [DeletionRequest] { try await tables.deletionRequests(limit: limit) }
    public func claimDeletion(owner: String, canRewriteLake: Bool, oldVersionsDueMs: Int64, storeDueMs: Int64, nowMs: Int64, leaseMs: Int64) async throws -> DeletionClaim? {
        try await tables.claimDeletion(owner: owner, canRewriteLake: canRewriteLake, oldVersionsDueMs: oldVersionsDueMs, storeDueMs: storeDueMs, nowMs: nowMs, leaseMs: leaseMs)
    }
    public func deidentify(_ claim: DeletionClaim, nowMs: Int64) async throws -> DeidentifyResult { throw StoreError.unavailable("forget-user " + Self.preview) }
    public func reclaimOldVersions(nowMs: Int64) async throws -> Int { try await tables.reclaimOldVersions(nowMs: nowMs) }
    public func renewDeletionLease(id: String, owner: String, untilMs: Int64) async throws -> Bool { try await tables.renewDeletionLease(id: id, owner: owner, untilMs: untilMs) }
    public func finishLakeStep(id: String, partitions: Int) async throws { try await tables.finishLakeStep(id: id, partitions: partitions) }
    public func settleDeletion(id: String, failure: DeletionFailure?, nowMs: Int64) async throws -> DeletionRequest? {
        try await tables.settleDeletion(id: id, failure: failure, nowMs: nowMs)
    }
    public func deletedSubjects(receivedSinceMs sinceMs: Int64) async throws -> (salt: [UInt8], hashes: Set<String>) {
        try await tables.deletedSubjects(receivedSinceMs: sinceMs)
    }
    public func lifecycleStatus(includeOldestEvent: Bool) async throws -> LifecycleStatus { try await tables.lifecycleStatus(includeOldestEvent: false) }
}

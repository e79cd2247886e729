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
/// Deletion (CH34) reaches every event, sealed or not: forget-user and retention first seal the
/// segments waiting (so no segment file holds an event the step must change, and the sealed ones
/// are removed), then rewrite the chunks copy on write (`ChunkDeidentification`, retention by
/// `ChunkRewrites`) and publish them in one manifest swap, under the process's one column
/// writer (``columns``, which `serve`'s seals share).
/// The lake export reads the chunks the same way, once the segments are sealed (``ChunkExport``).
public final class SegmentEventStore: EventStore, @unchecked Sendable {
    public let path: String
    /// The store's SQLite file: receipts, quarantine, first-seen times, the ledger.
    public let tables: SQLiteEventStore
    public let index: EventIDIndex
    /// The column store's writer for this process: seals, de-identification and retention.
    public let columns: ColumnWriterSlot
    private let writer: SegmentWriter
    public var segmentsDirectory: String { Self.segmentsDirectory(forDatabase: path) }

    public static func segmentsDirectory(forDatabase path: String) -> String { path + ".segments" }
    public static func idsDirectory(forDatabase path: String) -> String { path + ".ids" }

    /// Opens the store at `path` (creating it when missing; a store of the SQLite log is upgraded
    /// in place first, `SegmentStoreUpgrade`), recovering the segment log (a torn tail cut,
    /// with a line to `log`) and taking the ids of the segments not yet sealed back into memory,
    /// so dedupe stays exact across the restart.
    public init(path: String, configuration: StoreConfiguration = StoreConfiguration(), limits: SegmentWriter.Limits = SegmentWriter.Limits(),
                log: (String) -> Void = { _ in }) throws {
        self.path = path
        tables = try SQLiteEventStore(path: path, configuration: configuration)
        index = try EventIDIndex(directory: Self.idsDirectory(forDatabase: path))
        try SegmentStoreUpgrade.run(databasePath: path, tables: tables, index: index, log: log)
        let segments = try SegmentLog(directory: Self.segmentsDirectory(forDatabase: path), log: log)
        for segment in segments.segments {
            for record in try segments.records(of: segment) {
                index.addPending((0..<record.rows.count).map { row in record.rows.eventID(row).withUnsafeBytes { UUIDWords(orderingBytes: $0) } },
                                 segment: segment.sequence)
            }
        }
        writer = SegmentWriter(log: segments, index: index, limits: limits)
        columns = ColumnWriterSlot(directory: ColumnStore.directory(forDatabase: path))
    }

    /// How long a deletion or the retention run waits for `serve`'s seal to let the writer go.
    static let lifecycleLockWait: Duration = .seconds(120)

    public var engine: String { "segments" }

    public var isHealthy: Bool { writer.isHealthy && tables.isHealthy }

    /// Requests written to the segments since the store was opened, counted before their 200 goes
    /// out: a number that moves with every acknowledged request, which the SQLite file's own
    /// version does not until the next seal (the served pages' cache keys on both).
    public var writtenRequests: Int { writer.written.frames }

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
        await Task.detached { [self] in closeNow() }.value
    }

    /// ``close()`` on the calling thread (a command-line step that is not async).
    public func closeNow() {
        writer.close()
        columns.release()
        tables.closeNow()
    }

    /// Seals what waits in segments, if anything does (a store left by a kill -9, or a restore).
    public func sealIfNeeded() throws {
        guard try hasUnsealedEvents() else { return }
        guard try columns.withWriter(lockWait: Self.lifecycleLockWait, { writer, _ in try seal(into: writer) }) != nil else {
            throw StoreError.unavailable("the column store stayed busy")
        }
    }

    /// Whether any segment file of the store at `path` holds a frame, read from the directory
    /// alone: no lock, no replay of ids. What an analysis command checks before it opens the
    /// store to seal (opening loads the id runs' filters, far more than a funnel's own work).
    public static func segmentsHoldFrames(databasePath path: String) -> Bool {
        let directory = segmentsDirectory(forDatabase: path)
        return SegmentLog.list(directory).contains { name in
            guard SegmentLayout.sequence(fileName: name) != nil else { return false }
            var status = stat()
            return stat(directory + "/" + name, &status) == 0 && Int(status.st_size) > SegmentLayout.headerBytes
        }
    }

    /// Whether frames wait in the segments: the open one, or closed ones not sealed yet.
    public func hasUnsealedEvents() throws -> Bool {
        // A closed segment of only a header (the open one at the last restart) holds nothing.
        try writer.withLog { log in ([log.openSegment] + log.closedSegments).contains { $0.bytes > SegmentLayout.headerBytes } }
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
                                      remove: { through in try self.writer.removeSealed(through: through) })
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

    // MARK: Deletion and retention (CH34)

    public func requestDeletion(userID: String, nowMs: Int64) async throws -> (request: DeletionRequest, created: Bool) {
        try await Task.detached { [self] in
            // A completed request covers the user only while nothing stored may carry the id again.
            let stored = try hasUnsealedEvents() || columnsMayHold(userID: userID.lowercased())
            return try tables.requestDeletionNow(userID: userID, nowMs: nowMs, storedElsewhere: stored)
        }.value
    }

    /// Whether the column store's dictionaries hold the id (as a UUID, or as text in any case):
    /// a forgotten id is a tombstone there. Text is never forgotten from the string dictionary,
    /// so an id once stored in upper case always answers yes (a new request, a no-op step).
    func columnsMayHold(userID: String) throws -> Bool {
        let directory = ColumnStore.directory(forDatabase: path)
        guard FileManager.default.fileExists(atPath: directory + "/" + ColumnManifest.fileName) else { return false }
        let store = try ColumnStore(directory: directory)
        if let id = UUIDWords(lowercaseString: userID), try store.uuidDictionary().existingCode(uuid: id) != nil { return true }
        return store.strings.strings.contains { $0.utf8.count == 36 && $0.lowercased() == userID }
    }

    public func deidentify(_ claim: DeletionClaim, nowMs: Int64) async throws -> DeidentifyResult {
        try await Task.detached { [self] in try deidentifyNow(claim, nowMs: nowMs) }.value
    }

    /// The store step (`ChunkDeidentification`): the segments sealed, the user's rows
    /// rewritten in the chunks and published, then the tables' part (first-seen times, the ledger
    /// forgetting the user id, the audit) in one transaction. The receive hours are noted in the
    /// ledger before the publish, so a crash between the publish and the tables, whose redo finds
    /// no row with the id, still leaves the lake step every hour to rewrite; that redo records
    /// zero counts, and the first run's first-seen move is lost.
    public func deidentifyNow(_ claim: DeletionClaim, nowMs: Int64) throws -> DeidentifyResult {
        guard let userID = claim.userID else { return DeidentifyResult() }
        let outcome = try columns.withWriter(lockWait: Self.lifecycleLockWait) { writer, _ in
            try seal(into: writer)
            let outcome = try ChunkDeidentification(writer: writer, userText: userID.lowercased(), cutoffMs: claim.request.receivedTimeMs).run()
            if outcome.result.events > 0 {
                // The hours first: a retry after the publish finds no row with the id to take them from.
                try tables.noteLakeHoursNow(requestID: claim.request.id, hours: outcome.result.hours)
                try writer.publish(sealedThroughRowID: writer.manifest.sealedThroughRowID)
            }
            return outcome
        }
        guard let outcome else { throw StoreError.unavailable("the column store stayed busy") }
        try tables.recordDeidentifiedNow(claim, result: outcome.result, firstSeen: outcome.firstSeen, nowMs: nowMs)
        return outcome.result
    }

    /// Runs ``purgeNow(receivedBeforeMs:nowMs:)`` on a background thread at nice 15, as the seal
    /// runs: a day's rewrite then takes the cores only when requests leave them (BENCHMARKS.md,
    /// "A day's retention while ingesting").
    public func purge(receivedBeforeMs: Int64, nowMs: Int64) async throws -> PurgeResult {
        try await BackgroundThread.run(name: "handz.retention") { [self] in try purgeNow(receivedBeforeMs: receivedBeforeMs, nowMs: nowMs) }.get()
    }

    /// Retention (CH33-P3): the segments sealed, the chunks received before the cutoff dropped
    /// whole (or written again without those rows when a chunk straddles it) and published, the
    /// id runs wholly older than the cutoff dropped, then the tables purged as on SQLite. Ingestion
    /// goes on meanwhile: only the seal's roll of the open segment takes the log's thread.
    public func purgeNow(receivedBeforeMs cutoffMs: Int64, nowMs: Int64) throws -> PurgeResult {
        let removed = try columns.withWriter(lockWait: Self.lifecycleLockWait) { writer, _ -> Int in
            try seal(into: writer)
            let before = writer.manifest.chunks.reduce(0) { $0 + $1.rows }
            guard try ChunkRewrites(writer: writer).apply(replacements: [:], replacedIDs: [], dirtyInstalls: InstallCells(), receivedBefore: cutoffMs) > 0
            else { return 0 }
            try writer.publish(sealedThroughRowID: writer.manifest.sealedThroughRowID)
            return before - writer.manifest.chunks.reduce(0) { $0 + $1.rows }
        }
        guard let removed else { throw StoreError.unavailable("the column store stayed busy") }
        _ = try index.dropRuns(receivedBeforeMs: cutoffMs)
        return try tables.purge(receivedBeforeMs: cutoffMs, nowMs: nowMs, eventsRemovedElsewhere: removed)
    }

    // MARK: Export (the lake)

    /// The events received in the range, from the chunks once the segments waiting are sealed
    /// (``ChunkExport``: the order and rows the SQLite store gives), read while this process's
    /// column writer is held, so no seal removes a part being read.
    public func exportEvents(receivedFromMs fromMs: Int64, toMs: Int64, _ body: @escaping @Sendable (ExportedEvent) throws -> Void) async throws {
        try await Task.detached { [self] in
            // Read under the writer: no seal publishes (and removes merged parts) meanwhile.
            let exported = try columns.withWriter(lockWait: Self.lifecycleLockWait) { writer, _ in
                try seal(into: writer)
                let directory = ColumnStore.directory(forDatabase: path)
                guard FileManager.default.fileExists(atPath: directory + "/" + ColumnManifest.fileName) else { return }
                try ChunkExport(store: try ColumnStore(directory: directory)).forEach(receivedFromMs: fromMs, toMs: toMs, body)
            }
            guard exported != nil else { throw StoreError.unavailable("the column store stayed busy") }
        }.value
    }

    public func registerLake() async throws { try await tables.registerLake() }

    // MARK: The ledger, as the SQLite file keeps it

    public func deletionRequest(id: String) async throws -> DeletionRequest? { try await tables.deletionRequest(id: id) }
    public func deletionRequests(limit: Int) async throws -> [DeletionRequest] { try await tables.deletionRequests(limit: limit) }
    public func claimDeletion(owner: String, canRewriteLake: Bool, oldVersionsDueMs: Int64, storeDueMs: Int64, nowMs: Int64, leaseMs: Int64) async throws -> DeletionClaim? {
        try await tables.claimDeletion(owner: owner, canRewriteLake: canRewriteLake, oldVersionsDueMs: oldVersionsDueMs, storeDueMs: storeDueMs, nowMs: nowMs, leaseMs: leaseMs)
    }
    /// SQLite's old pages only: the column store is this engine's only copy of its events and is
    /// never discarded as "behind" (the store step rewrote it before the ledger moved on).
    public func reclaimOldVersions(nowMs: Int64) async throws -> Int {
        try await Task.detached { [tables] in try tables.reclaimOldVersionsNow(nowMs: nowMs, keepColumnStore: true) }.value
    }
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

import HandzAnalyticsCore
import HandzSQLite

/// A request the segment log held, as its seal hands it to the store's tables (issue 34 §4:
/// SQLite keeps what is small and relational): the receipt the client was told, the quarantine
/// records, and the `app_open`s it stored, for each install's first-seen time (``InstallFirstSeen``).
public struct SealedRequest: Sendable {
    public var receivedTimeMs: Int64
    public var keyID: String
    public var sentAtMs: Int64?
    public var bodyBytes: Int
    public var accepted: Int
    public var duplicates: Int
    public var rejected: [RejectedEventRecord]
    /// The install and event time of each `app_open` stored.
    public var appOpens: [(install: String, eventTimeMs: Int64)]

    public init(receivedTimeMs: Int64, keyID: String, sentAtMs: Int64?, bodyBytes: Int, accepted: Int, duplicates: Int,
                rejected: [RejectedEventRecord], appOpens: [(install: String, eventTimeMs: Int64)]) {
        (self.receivedTimeMs, self.keyID, self.sentAtMs, self.bodyBytes) = (receivedTimeMs, keyID, sentAtMs, bodyBytes)
        (self.accepted, self.duplicates, self.rejected, self.appOpens) = (accepted, duplicates, rejected, appOpens)
    }
}

extension SQLiteEventStore {
    /// `store_meta`'s key for the last segment whose requests are recorded.
    static let segmentsRecordedKey = "segments_recorded_through"

    /// Records the requests of segment `segment` (receipts, quarantine, first-seen times) in one
    /// transaction, once: a segment at or below the one last recorded is skipped, since a seal
    /// that crashed after this step and before it removed the segment hands it again.
    public func recordSealed(_ requests: [SealedRequest], segment: UInt64) throws {
        try withConnection { database in
            try database.transaction {
                let recorded = try database.scalar("SELECT CAST(value AS INTEGER) FROM store_meta WHERE key = ?1", [.text(Self.segmentsRecordedKey)]) ?? 0
                guard Int64(clamping: segment) > recorded else { return }
                let insertRejected = try database.prepare(StoreWriter.insertRejectedSQL)
                let insertBatch = try database.prepare(StoreWriter.insertBatchSQL)
                var firstSeen = InstallFirstSeen.Pending()
                for request in requests {
                    try StoreWriter.writeReceipt(receivedTimeMs: request.receivedTimeMs, keyID: request.keyID, sentAtMs: request.sentAtMs,
                                                 bodyBytes: request.bodyBytes, accepted: request.accepted, duplicates: request.duplicates,
                                                 rejected: request.rejected, insertRejected: insertRejected, insertBatch: insertBatch)
                    for open in request.appOpens { firstSeen.add(install: open.install, eventTimeMs: open.eventTimeMs, receivedMs: request.receivedTimeMs) }
                }
                let upsert = try database.prepare(InstallFirstSeen.upsertSQL)
                for (install, times) in firstSeen.byInstall { try upsert.run([.text(install), .integer(times.first), .integer(times.last)]) }
                try database.prepare("INSERT INTO store_meta(key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
                    .run([.text(Self.segmentsRecordedKey), .text(String(segment))])
            }
        }
    }
}

/// One install's first-seen time after the segment engine de-identified its past (issue 34;
/// ``InstallFirstSeen``): the facts the SQLite engine reads from its `events` table, read from
/// the chunks instead.
public struct FirstSeenMove: Sendable {
    public var install: String
    /// The fresh install id the install's past now carries.
    public var past: String
    /// The earliest event time of an `app_open` moved to `past`.
    public var pastFirstAppOpenMs: Int64?
    /// The latest receive time of an `app_open` the install kept.
    public var installLastReceivedMs: Int64?

    public init(install: String, past: String, pastFirstAppOpenMs: Int64?, installLastReceivedMs: Int64?) {
        (self.install, self.past, self.pastFirstAppOpenMs, self.installLastReceivedMs) = (install, past, pastFirstAppOpenMs, installLastReceivedMs)
    }
}

extension SQLiteEventStore {
    /// Notes the receive hours a store step is about to change, before the segment engine
    /// publishes its chunks: a step that fails after the publish finds no row with the id on its
    /// retry, and without these hours the lake step would rewrite nothing (CH34 §8).
    public func noteLakeHoursNow(requestID: String, hours: [Int64]) throws {
        try withConnection { database in
            try database.transaction {
                let union = try Self.lakeHoursUnion(database, requestID, hours)
                try database.prepare("UPDATE deletion_requests SET lake_hours = ?1 WHERE request_id = ?2")
                    .run([.text(DeletionRequest.encodeHours(union)), .text(requestID)])
            }
        }
    }

    /// `hours` with those the request already notes, sorted.
    static func lakeHoursUnion(_ database: SQLiteDatabase, _ requestID: String, _ hours: [Int64]) throws -> [Int64] {
        let noted = try database.prepare("SELECT lake_hours FROM deletion_requests WHERE request_id = ?1").query([.text(requestID)]) { $0.text(0) }.first ?? nil
        return Set(DeletionRequest.decodeHours(noted) + hours).sorted()
    }

    /// The segment engine's store step, once its chunks are published (``Deidentification``): the
    /// first-seen times follow the moved pasts, the ledger forgets the user id, the audit keeps a
    /// hash and the counts, in one transaction; then the write-ahead log is truncated.
    public func recordDeidentifiedNow(_ claim: DeletionClaim, result: DeidentifyResult, firstSeen: [FirstSeenMove], nowMs: Int64) throws {
        try withConnection { database in
            try database.transaction {
                for move in firstSeen {
                    try InstallFirstSeen.deidentified(database, install: move.install, past: move.past, pastFirstAppOpenMs: move.pastFirstAppOpenMs,
                                                      installLastReceivedMs: move.installLastReceivedMs, cutoffMs: claim.request.receivedTimeMs)
                }
                try Self.finishStoreStep(database, claim, result, nowMs: nowMs)
            }
        }
        try checkpointNow()
    }
}

extension SQLiteEventStore {
    /// `store_meta`'s key naming the write path that owns the store's events, once it is not the
    /// SQLite log (`segments`, issue 34).
    public static let engineKey = "events_engine"

    /// The write path recorded in the store (`sqlite` when none is: every store before issue 34).
    public func engineNow() throws -> String {
        try withConnection { try Self.engine($0) }
    }

    /// Marks a store whose log holds no event as the segment engine's (a new store, issue 34);
    /// false, with nothing changed, when the log holds events (the upgrade moves them first).
    @discardableResult
    public func markSegmentEngineNow() throws -> Bool {
        try withConnection { database in
            try database.transaction {
                guard try database.scalar("SELECT EXISTS (SELECT 1 FROM main.events)") == 0 else { return false }
                try database.prepare("INSERT OR REPLACE INTO store_meta(key, value) VALUES (?1, 'segments')").run([.text(Self.engineKey)])
                return true
            }
        }
    }

    /// The write path `database` records (`sqlite` when it records none).
    public static func engine(_ database: SQLiteDatabase) throws -> String {
        try database.prepare("SELECT value FROM store_meta WHERE key = ?1").query([.text(engineKey)]) { $0.text(0) ?? "" }.first ?? "sqlite"
    }

    /// The upgrade's last step to the segment engine (issue 34 §4), once every row of the log is in
    /// the column store and its event ids in an id run: in one transaction the log's rows and its
    /// journal go and the store is marked `segments`. The change counter does not move (its
    /// delete trigger is dropped for the statement and made again), so the column store, sealed
    /// at that counter, stays current. Then the freed pages are given back (`VACUUM`). Returns the
    /// rows removed.
    ///
    /// `sealedThroughRowID` and `logChanges` are what the column store was sealed through: a row
    /// appended or changed since (a SQLite-engine `import` beside the upgrade) stops the step with
    /// nothing removed, and the upgrade runs again.
    @discardableResult
    public func handLogToSegments(sealedThroughRowID: Int64, logChanges: Int64) throws -> Int {
        try withConnection { database in
            let removed = try database.transaction {
                guard try LogChanges.lastRowID(database) == sealedThroughRowID, try LogChanges.current(database) == logChanges else {
                    throw StoreError.unavailable("the log changed during the upgrade to the segment engine; open the store again to finish it")
                }
                try database.execute("DROP TRIGGER IF EXISTS events_deleted_count")
                try database.execute("DELETE FROM events")
                let removed = database.changes
                try database.execute(LogChanges.deleteTriggerSQL)
                try database.execute("DELETE FROM log_rewrites")
                try database.prepare("INSERT OR REPLACE INTO store_meta(key, value) VALUES (?1, 'segments')").run([.text(Self.engineKey)])
                return removed
            }
            try database.execute("VACUUM")
            return removed
        }
    }
}

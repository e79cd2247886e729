import Foundation
import HandzAnalyticsCore
import HandzSQLite

/// The on-device queue: one SQLite file in WAL mode holding events not yet delivered, the
/// local-only counters, and the client's small persistent state (install id, user id, consent).
///
/// Every change to the queue and its counters happens in one transaction, so across crashes
/// and restarts `tracked = delivered + dropped (by reason) + queued` holds. Event bodies are
/// stored without `user_id`; it is kept in its own column and added when sending, so signing
/// out removes it from every queued event at once (CH33 §9). Each event keeps the catalog
/// version it was validated against, so events queued before an app update are sent, and
/// validated by the server, under the catalog of the build that tracked them
/// (docs/catalog-releases.md).
final class EventQueue {
    struct Row {
        let seq: Int64
        let body: [UInt8]
        let userID: String?
        let size: Int
        let timeMs: Int64
        /// The catalog the event was validated against; nil for events queued by a client that
        /// did not record it (sent without a version, as that client did).
        let catalogVersion: String?
    }

    /// An event accepted by `track`, waiting for the next commit.
    struct Pending {
        let name: String
        let timeMs: Int64
        /// The event JSON without `user_id`.
        let body: [UInt8]
        let userID: String?
    }

    let path: String
    private(set) var database: SQLiteDatabase
    /// Events recovered or lost when the file had to be rebuilt (for diagnostics).
    private(set) var recovery: (recovered: Int, lost: Int)?

    static let counterNames = ["tracked", "delivered"]

    /// The catalog version new events are queued under: the app's own catalog.
    let catalogVersion: String

    init(path: String, catalogVersion: String = CatalogSnapshot.catalog.version) throws {
        self.path = path
        self.catalogVersion = catalogVersion
        do {
            database = try Self.open(path)
            guard try database.scalar("SELECT 1 FROM pragma_quick_check WHERE quick_check = 'ok'") == 1 else {
                throw SQLiteError(code: 11, message: "quick_check failed")
            }
        } catch let error as SQLiteError where error.isCorruption {
            let (database, recovery) = try Self.rebuild(path)
            self.database = database
            self.recovery = recovery
        }
        // A rebuild that failed earlier left its damaged copy beside the file: finish it now. A copy
        // already imported (the app stopped before it was deleted) is only deleted.
        for aside in Self.leftoverDamagedCopies(of: path) {
            if try state(Self.importedMarker(aside)) != nil {
                Self.removeCopy(aside)
                continue
            }
            let recovered = try Self.importDamaged(aside, into: database)
            recovery = ((recovery?.recovered ?? 0) + recovered.recovered, (recovery?.lost ?? 0) + recovered.lost)
        }
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS queue (
            seq     INTEGER PRIMARY KEY AUTOINCREMENT,
            name    TEXT    NOT NULL,
            time_ms INTEGER NOT NULL,
            size    INTEGER NOT NULL,
            body    BLOB    NOT NULL,
            user_id TEXT,
            catalog_version TEXT
        );
        CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """

    static func open(_ path: String) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = NORMAL")
        try database.execute("PRAGMA secure_delete = ON")
        try database.execute(schema)
        // Files written before the catalog version was kept gain the column; their rows read NULL.
        if try database.scalar("SELECT COUNT(*) FROM pragma_table_info('queue') WHERE name = 'catalog_version'") == 0 {
            try database.execute("ALTER TABLE queue ADD COLUMN catalog_version TEXT")
        }
        return database
    }

    /// Moves a damaged file aside and starts a new file with every row that can still be read
    /// (``importDamaged(_:into:)``). The damaged copy is deleted only once its rows are committed to
    /// the new file; if the rebuild fails, it stays beside the queue and the next start finishes
    /// the job, so no event is lost without being counted.
    static func rebuild(_ path: String) throws -> (SQLiteDatabase, (recovered: Int, lost: Int)) {
        let aside = path + damagedSuffix + String(Int(Date().timeIntervalSince1970 * 1000))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix) }
        let database = try open(path)
        return (database, try importDamaged(aside, into: database))
    }

    static let damagedSuffix = ".damaged-"

    /// Damaged copies a failed rebuild left beside `path`, oldest first.
    static func leftoverDamagedCopies(of path: String) -> [String] {
        let url = URL(fileURLWithPath: path)
        let prefix = url.lastPathComponent + damagedSuffix
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted()
            .map { url.deletingLastPathComponent().appendingPathComponent($0).path }
    }

    /// Tests only: called with the damaged copy's path inside the import's transaction, after the
    /// rows are written; throwing there proves that a failed rebuild keeps the damaged copy.
    static let importFaultForTesting = Locked<(@Sendable (String) throws -> Void)?>(nil)

    /// The `state` entry recording, in the import's own transaction, that a damaged copy was
    /// imported — so a copy whose deletion did not happen is never imported twice.
    static func importedMarker(_ aside: String) -> String {
        "imported:" + URL(fileURLWithPath: aside).lastPathComponent
    }

    static func removeCopy(_ aside: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: aside + suffix) }
    }

    /// Copies every readable row, counter and state entry of the damaged copy at `aside` into
    /// `database` in one transaction, counting rows that cannot be read as `corrupt` (so
    /// `tracked = delivered + dropped + queued` holds), then deletes the copy. Counters are added
    /// to the new file's; state the new file already has wins.
    static func importDamaged(_ aside: String, into database: SQLiteDatabase) throws -> (recovered: Int, lost: Int) {
        var counters: [String: Int64] = [:]
        var state: [(String, String)] = []
        var rows: [(String, Int64, Int64, [UInt8], String?, String?)] = []
        if let damaged = try? SQLiteDatabase(path: aside, readOnly: true) {
            if let statement = try? damaged.prepare("SELECT name, value FROM counters") {
                _ = try? statement.query { counters[$0.text(0) ?? ""] = $0.int64(1) }
            }
            if let statement = try? damaged.prepare("SELECT key, value FROM state") {
                _ = try? statement.query { state.append(($0.text(0) ?? "", $0.text(1) ?? "")) }
            }
            // Row by row, so one bad page loses only its rows.
            let seqs = (try? damaged.prepare("SELECT seq FROM queue ORDER BY seq").query { $0.int64(0) }) ?? []
            // A copy from before the catalog version was kept has no such column: NULL for it.
            let version = (try? damaged.scalar("SELECT COUNT(*) FROM pragma_table_info('queue') WHERE name = 'catalog_version'")) == 1 ? "catalog_version" : "NULL"
            if let statement = try? damaged.prepare("SELECT name, time_ms, size, body, user_id, \(version) FROM queue WHERE seq = ?1") {
                for seq in seqs {
                    if let row = try? statement.query([.integer(seq)], { ($0.text(0) ?? "", $0.int64(1), $0.int64(2), $0.blob(3), $0.text(4), $0.text(5)) }).first {
                        rows.append(row)
                    }
                }
            }
        }
        let queuedBefore = (counters["tracked"] ?? 0) - counters.filter { $0.key != "tracked" }.values.reduce(0, +)
        let lost = max(0, Int(queuedBefore) - rows.count)
        try database.transaction {
            for (name, value) in counters where !name.isEmpty { try add(database, name, Int(value)) }
            for (key, value) in state { try database.prepare("INSERT OR IGNORE INTO state(key, value) VALUES (?1, ?2)").run([.text(key), .text(value)]) }
            let insert = try database.prepare("INSERT INTO queue(name, time_ms, size, body, user_id, catalog_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            for row in rows {
                try insert.run([.text(row.0), .integer(row.1), .integer(row.2), .blob(row.3), row.4.map { .text($0) } ?? .null, row.5.map { .text($0) } ?? .null])
            }
            if counters["tracked"] == nil { try add(database, "tracked", rows.count) }
            if lost > 0 { try add(database, "dropped." + DropReason.corrupt.key, lost) }
            try database.prepare("INSERT OR REPLACE INTO state(key, value) VALUES (?1, '1')").run([.text(importedMarker(aside))])
            try importFaultForTesting.get()?(aside)
        }
        removeCopy(aside)
        return (rows.count, lost)
    }

    static func add(_ database: SQLiteDatabase, _ counter: String, _ amount: Int) throws {
        guard amount != 0 else { return }
        try database.prepare("INSERT INTO counters(name, value) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET value = value + ?2")
            .run([.text(counter), .integer(Int64(amount))])
    }

    // MARK: Writing

    /// Commits tracked events (and the count of invalid ones), then enforces the caps by dropping
    /// the oldest. Returns what was dropped.
    @discardableResult
    func commit(_ pending: [Pending], invalid: Int, maxEvents: Int, maxBytes: Int) throws -> [DropReason: Int] {
        try database.transaction {
            let insert = try database.prepare("INSERT INTO queue(name, time_ms, size, body, user_id, catalog_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            for event in pending {
                try insert.run([.text(event.name), .integer(event.timeMs), .integer(Int64(event.body.count)), .blob(event.body),
                                event.userID.map { .text($0) } ?? .null, .text(catalogVersion)])
            }
            try Self.add(database, "tracked", pending.count + invalid)
            try Self.add(database, "dropped." + DropReason.invalid.key, invalid)
            return try enforceCaps(maxEvents: maxEvents, maxBytes: maxBytes)
        }
    }

    /// Drops the oldest events until both caps hold (inside the caller's transaction).
    private func enforceCaps(maxEvents: Int, maxBytes: Int) throws -> [DropReason: Int] {
        var dropped: [DropReason: Int] = [:]
        let count = try database.scalar("SELECT COUNT(*) FROM queue") ?? 0
        if count > maxEvents {
            let excess = Int(count) - maxEvents
            try database.prepare("DELETE FROM queue WHERE seq IN (SELECT seq FROM queue ORDER BY seq LIMIT ?1)").run([.integer(Int64(excess))])
            dropped[.capEvents] = excess
        }
        var bytes = try database.scalar("SELECT COALESCE(SUM(size), 0) FROM queue") ?? 0
        if bytes > maxBytes {
            let sizes = try database.prepare("SELECT seq, size FROM queue ORDER BY seq").query { ($0.int64(0), $0.int64(1)) }
            var cutoff: Int64 = -1
            var removed = 0
            for (seq, size) in sizes where bytes > maxBytes {
                bytes -= size
                cutoff = seq
                removed += 1
            }
            try database.prepare("DELETE FROM queue WHERE seq <= ?1").run([.integer(cutoff)])
            dropped[.capBytes] = removed
        }
        for (reason, amount) in dropped { try Self.add(database, "dropped." + reason.key, amount) }
        return dropped
    }

    /// The oldest events, up to `maxEvents` and `maxBytes` (at least one).
    func batch(maxEvents: Int, maxBytes: Int) throws -> [Row] {
        let statement = try database.prepare("SELECT seq, body, user_id, size, time_ms, catalog_version FROM queue ORDER BY seq LIMIT ?1")
        var rows: [Row] = []
        var bytes = 0
        for row in try statement.query([.integer(Int64(maxEvents))], {
            Row(seq: $0.int64(0), body: $0.blob(1), userID: $0.text(2), size: Int($0.int64(3)), timeMs: $0.int64(4), catalogVersion: $0.text(5))
        }) {
            if !rows.isEmpty && bytes + row.size > maxBytes { break }
            // One batch, one catalog version: events queued before an app update go on their own.
            if let first = rows.first, first.catalogVersion != row.catalogVersion { break }
            rows.append(row)
            bytes += row.size
        }
        return rows
    }

    /// Removes delivered and server-rejected events, counting them.
    func settle(delivered: [Int64], rejected: [(Int64, String)]) throws {
        try database.transaction {
            // Only rows still queued are counted: one removed while its batch was in flight (a cap,
            // crash reports turned off) was counted when it was removed.
            let delete = try database.prepare("DELETE FROM queue WHERE seq = ?1")
            var deliveredCount = 0
            for seq in delivered {
                try delete.run([.integer(seq)])
                deliveredCount += database.changes
            }
            var byCode: [String: Int] = [:]
            for (seq, code) in rejected {
                try delete.run([.integer(seq)])
                byCode[code, default: 0] += database.changes
            }
            try Self.add(database, "delivered", deliveredCount)
            for (code, count) in byCode { try Self.add(database, "dropped." + DropReason.rejectedByServer(code: code).key, count) }
        }
    }

    /// Drops events older than `cutoffMs`; returns how many.
    @discardableResult
    func expire(olderThanMs cutoffMs: Int64) throws -> Int {
        try database.transaction {
            try database.prepare("DELETE FROM queue WHERE time_ms < ?1").run([.integer(cutoffMs)])
            let removed = database.changes
            try Self.add(database, "dropped." + DropReason.expired.key, removed)
            return removed
        }
    }

    /// Empties the queue for an opt-out; `uncommitted` events tracked but not yet written are
    /// counted too, so the invariant holds.
    func purgeForOptOut(uncommitted: Int) throws {
        try database.transaction {
            try database.execute("DELETE FROM queue")
            let removed = database.changes
            try Self.add(database, "tracked", uncommitted)
            try Self.add(database, "dropped." + DropReason.purgedOptOut.key, removed + uncommitted)
        }
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Removes every queued event named `name` (crash reports turned off), counted as `reason`;
    /// `uncommitted` such events tracked but not yet written are counted too.
    func purge(named name: String, uncommitted: Int, reason: DropReason) throws {
        try database.transaction {
            try database.prepare("DELETE FROM queue WHERE name = ?1").run([.text(name)])
            let removed = database.changes
            try Self.add(database, "tracked", uncommitted)
            try Self.add(database, "dropped." + reason.key, removed + uncommitted)
        }
    }

    /// Sign-out and account deletion: no queued event keeps a user_id.
    func removeUserIDs() throws {
        try database.execute("UPDATE queue SET user_id = NULL WHERE user_id IS NOT NULL")
    }

    // MARK: Reading

    func counters() throws -> [String: Int] {
        var result: [String: Int] = [:]
        _ = try database.prepare("SELECT name, value FROM counters").query { result[$0.text(0) ?? ""] = Int($0.int64(1)) }
        return result
    }

    func summary() throws -> (count: Int, bytes: Int, oldestMs: Int64?) {
        let statement = try database.prepare("SELECT COUNT(*), COALESCE(SUM(size), 0), MIN(time_ms) FROM queue")
        return try statement.query { ($0.int64(0), $0.int64(1), $0.isNull(2) ? nil : $0.int64(2)) }.first.map { (Int($0.0), Int($0.1), $0.2) } ?? (0, 0, nil)
    }

    func state(_ key: String) throws -> String? {
        try database.prepare("SELECT value FROM state WHERE key = ?1").query([.text(key)]) { $0.text(0) }.first ?? nil
    }

    func setState(_ key: String, _ value: String?) throws {
        if let value {
            try database.prepare("INSERT OR REPLACE INTO state(key, value) VALUES (?1, ?2)").run([.text(key), .text(value)])
        } else {
            try database.prepare("DELETE FROM state WHERE key = ?1").run([.text(key)])
        }
    }
}

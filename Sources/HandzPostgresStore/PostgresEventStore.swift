import Foundation
import HandzAnalyticsCore
import HandzSigning
import HandzStore
import Logging
import PostgresNIO

/// The shared store for several ingest nodes: PostgreSQL through postgres-nio.
///
/// The guarantees are the embedded store's: `append` returns only after its transaction
/// committed; `event_id` is unique across every node (the unique index decides, and
/// `INSERT … ON CONFLICT DO NOTHING RETURNING` tells each node which of its rows were new);
/// forget-user and purge behave the same. Each node groups concurrent requests into one
/// transaction (one multi-row `INSERT … SELECT FROM unnest(…)`), like the SQLite writer.
public final class PostgresEventStore: EventStore, @unchecked Sendable {
    public let engine = "postgres"
    let client: PostgresClient
    private let runTask: Task<Void, Never>
    let logger: Logger
    private let writer: GroupWriter
    private let healthy = Locked(true)

    /// Connects to `url` (`postgres://user@host:port/database`, with `sslmode` and `sslrootcert` as
    /// libpq reads them: ``PostgresConnectionSettings``) and migrates the schema.
    public init(url: String, logger: Logger = Logger(label: "handz.store.postgres")) async throws {
        let settings = try PostgresConnectionSettings(url: url)
        do {
            let probe = try await PostgresConnection.connect(configuration: try settings.connectionConfiguration(), id: 0, logger: logger)
            try await probe.close()
        } catch {
            throw StoreError.unavailable("cannot reach the database at \(settings): \(PostgresConnectionSettings.cause(of: error))")
        }
        let configuration = settings.clientConfiguration()
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runTask = Task { await client.run() }
        writer = GroupWriter(client: client, logger: logger)
        do {
            try await migrate()
        } catch {
            runTask.cancel()
            // A database a newer binary migrated: said as it is (a rollback), not as unreachable.
            if let error = error as? StoreSchemaError { throw error }
            // 42501 insufficient_privilege: a least-privilege role (scripts/postgres-roles.sql) met
            // a schema that still needs a migration, which only the tables' owner may run.
            if let error = error as? PSQLError, error.serverInfo?[.sqlState] == "42501" {
                throw StoreError.unavailable("the schema needs a migration this role may not run: migrate as the tables' owner, then re-run scripts/postgres-roles.sql (HandzServer documentation, \"Privacy\", PostgreSQL roles)")
            }
            throw StoreError.unavailable("cannot reach or migrate the database at \(settings): \(PostgresConnectionSettings.cause(of: error))")
        }
    }

    func migrate() async throws {
        try await client.withConnection { connection in
            try await Self.migrate(on: connection, logger: logger)
        }
    }

    /// Applies the pending migrations on `connection` under a session advisory lock, so nodes
    /// starting together migrate once. The lock is released on the same connection, awaited,
    /// before the connection goes back to the pool — on success and on failure alike; a session
    /// lock left on a pooled connection would stall every other node's start until it closed.
    static func migrate(on connection: PostgresConnection, logger: Logger) async throws {
        _ = try await connection.query("SELECT pg_advisory_lock(\(PostgresSchema.lockKey))", logger: logger)
        let outcome: Result<Void, any Error>
        do {
            try await applyMigrations(on: connection, logger: logger)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        do {
            _ = try await connection.query("SELECT pg_advisory_unlock(\(PostgresSchema.lockKey))", logger: logger)
        } catch {
            // The unlock itself failed (the connection is broken or stuck in a failed transaction):
            // closing the connection ends the session and with it the lock.
            try? await connection.close()
            try outcome.get()
            throw error
        }
        try outcome.get()
    }

    /// Runs no DDL when the schema is current: the least-privilege ingest role (issue 14 §5,
    /// `scripts/postgres-roles.sql`) may not create tables, so only the owner migrates.
    static func applyMigrations(on connection: PostgresConnection, logger: Logger) async throws {
        var exists = false
        for try await name in try await connection.query("SELECT to_regclass('schema_migrations')::text", logger: logger).decode(String?.self) {
            exists = name != nil
        }
        if !exists {
            _ = try await connection.query("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_time_ms BIGINT NOT NULL, description TEXT NOT NULL)", logger: logger)
        }
        var applied = 0
        for try await version in try await connection.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", logger: logger).decode(Int.self) {
            applied = version
        }
        try StoreSchemaError.refuseNewer(found: applied, supported: PostgresSchema.migrations.last!.version)
        for migration in PostgresSchema.migrations where migration.version > applied {
            _ = try await connection.query("BEGIN", logger: logger)
            do {
                for statement in migration.statements {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                _ = try await connection.query("INSERT INTO schema_migrations(version, applied_time_ms, description) VALUES (\(migration.version), \(now), \(migration.description))", logger: logger)
                _ = try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    public func append(_ batch: IngestBatch) async throws(StoreError) -> AppendResult {
        do {
            let result = try await writer.append(batch)
            healthy.set(true)
            return result
        } catch let error as StoreError {
            throw error
        } catch {
            healthy.set(false)
            throw .unavailable("write failed")
        }
    }

    public var isHealthy: Bool { healthy.get() && !writer.isClosed }

    public func close() async {
        await writer.close()
        runTask.cancel()
    }

    public func stats(fromMs: Int64, toMs: Int64) async throws -> StoreStats {
        var stats = StoreStats()
        let totals = try await client.query(
            "SELECT COUNT(*)::BIGINT, COALESCE(SUM(accepted), 0)::BIGINT, COALESCE(SUM(duplicates), 0)::BIGINT FROM batches WHERE received_time_ms >= \(fromMs) AND received_time_ms < \(toMs)",
            logger: logger)
        for try await (requests, accepted, duplicates) in totals.decode((Int64, Int64, Int64).self) {
            stats.requests = Int(requests)
            stats.accepted = Int(accepted)
            stats.duplicates = Int(duplicates)
        }
        for try await codes in try await client.query("SELECT error_codes FROM rejected_events WHERE received_time_ms >= \(fromMs) AND received_time_ms < \(toMs)", logger: logger).decode(String.self) {
            stats.rejected += 1
            for code in codes.split(separator: ",") { stats.rejectedByCode[String(code), default: 0] += 1 }
        }
        for try await count in try await client.query("SELECT COUNT(*)::BIGINT FROM events WHERE received_time_ms >= \(fromMs) AND received_time_ms < \(toMs)", logger: logger).decode(Int64.self) {
            stats.storedEvents = Int(count)
        }
        return stats
    }

    static func salt(_ connection: PostgresConnection, logger: Logger) async throws -> [UInt8] {
        for try await value in try await connection.query("SELECT value FROM store_meta WHERE key = 'audit_salt'", logger: logger).decode(String.self) {
            if let bytes = Hex.decode(value) { return bytes }
        }
        var random = SystemRandomNumberGenerator()
        let salt = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        _ = try await connection.query("INSERT INTO store_meta(key, value) VALUES ('audit_salt', \(Hex.encode(salt))) ON CONFLICT (key) DO NOTHING", logger: logger)
        for try await value in try await connection.query("SELECT value FROM store_meta WHERE key = 'audit_salt'", logger: logger).decode(String.self) {
            if let bytes = Hex.decode(value) { return bytes }
        }
        return salt
    }

    /// One statement, so one snapshot; rows are streamed (postgres-nio applies backpressure).
    public func exportEvents(receivedFromMs fromMs: Int64, toMs: Int64, _ body: @escaping @Sendable (ExportedEvent) throws -> Void) async throws {
        let sql = "SELECT \(ExportedEvent.selectList(eventID: "event_id", properties: "properties::text")) FROM events "
            + "WHERE received_time_ms >= $1 AND received_time_ms < $2 ORDER BY received_time_ms, event_id"
        var bindings = PostgresBindings()
        bindings.append(fromMs)
        bindings.append(toMs)
        let rows = try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
        for try await row in rows {
            let cells = row.makeRandomAccess()
            var failure: (any Error)?
            let event = ExportedEvent.read(
                text: { index in
                    do { return try cells[index].decode(String?.self) } catch { failure = error; return nil }
                },
                integer: { index in
                    do { return try cells[index].decode(Int64.self) } catch { failure = error; return 0 }
                })
            if let failure { throw failure }
            try body(event)
        }
    }

    public func purge(receivedBeforeMs cutoffMs: Int64, nowMs: Int64) async throws -> PurgeResult {
        try await client.withTransaction(logger: logger) { connection in
            func count(_ sql: PostgresQuery) async throws -> Int {
                var result = 0
                for try await value in try await connection.query(sql, logger: logger).decode(Int64.self) { result = Int(value) }
                return result
            }
            var result = PurgeResult()
            result.events = try await count("WITH d AS (DELETE FROM events WHERE received_time_ms < \(cutoffMs) RETURNING 1) SELECT COUNT(*)::BIGINT FROM d")
            // First-seen times stay while their install has an app_open left (HandzStore.InstallFirstSeen).
            _ = try await connection.query("DELETE FROM install_first_seen WHERE last_received_ms < \(cutoffMs)", logger: logger)
            result.rejectedEvents = try await count("WITH d AS (DELETE FROM rejected_events WHERE received_time_ms < \(cutoffMs) RETURNING 1) SELECT COUNT(*)::BIGINT FROM d")
            result.batches = try await count("WITH d AS (DELETE FROM batches WHERE received_time_ms < \(cutoffMs) RETURNING 1) SELECT COUNT(*)::BIGINT FROM d")
            result.deletionRequests = try await count(
                "WITH d AS (DELETE FROM deletion_requests WHERE state = 'completed' AND completed_time_ms < \(cutoffMs) RETURNING 1) SELECT COUNT(*)::BIGINT FROM d")
            result.auditEntries = try await count("WITH d AS (DELETE FROM privacy_audit WHERE performed_time_ms < \(cutoffMs) RETURNING 1) SELECT COUNT(*)::BIGINT FROM d")
            _ = try await connection.query(
                "INSERT INTO privacy_audit(performed_time_ms, action, rows_affected, detail) VALUES (\(nowMs), 'purge', \(Int64(result.events)), \("received before \(cutoffMs) ms"))",
                logger: logger)
            return result
        }
    }
}


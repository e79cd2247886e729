import Foundation
import HandzAnalyticsCore
import HandzStore
import Logging
import PostgresNIO

/// Groups the appends that arrive while a transaction is running into the next transaction: one
/// multi-row insert per table, so a node's write rate does not depend on one round trip per request.
///
/// Rows are inserted in `event_id` order. Two nodes inserting overlapping batches each take the
/// unique index's entries in the same order, so one waits for the other instead of each holding an
/// id the other needs (arrival order deadlocked them: PostgreSQL aborted one transaction and its
/// whole group answered 503).
actor GroupWriter {
    typealias Continuation = CheckedContinuation<AppendResult, any Error>

    private let client: PostgresClient
    private let logger: Logger
    private var pending: [(batch: IngestBatch, continuation: Continuation)] = []
    private var writing = false
    private var closing = false
    private var drained: [CheckedContinuation<Void, Never>] = []
    private let closedFlag = Locked(false)
    static let maxRowsPerTransaction = 20_000

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    nonisolated var isClosed: Bool { closedFlag.get() }

    func append(_ batch: IngestBatch) async throws -> AppendResult {
        guard !closing else { throw StoreError.closed }
        return try await withCheckedThrowingContinuation { continuation in
            pending.append((batch, continuation))
            if !writing {
                writing = true
                Task { await self.drain() }
            }
        }
    }

    /// Waits for queued appends to commit, then refuses new ones.
    func close() async {
        closing = true
        closedFlag.set(true)
        if !writing && pending.isEmpty { return }
        await withCheckedContinuation { drained.append($0) }
    }

    private func drain() async {
        while !pending.isEmpty {
            // The group is taken off the queue in one step: removing requests one at a time moves
            // the rest each time, quadratic in a long queue (as `SegmentWriter` found, issue 36).
            var count = 0
            var rows = 0
            while count < pending.count, count == 0 || rows + pending[count].batch.rows.count <= Self.maxRowsPerTransaction {
                rows += pending[count].batch.rows.count
                count += 1
            }
            let group = Array(pending.prefix(count))
            pending.removeFirst(count)
            do {
                let results = try await write(group.map(\.batch))
                for (entry, result) in zip(group, results) { entry.continuation.resume(returning: result) }
            } catch {
                logger.error("postgres write failed", metadata: ["requests": "\(group.count)"])
                for entry in group { entry.continuation.resume(throwing: StoreError.unavailable("write failed")) }
            }
        }
        writing = false
        for waiter in drained { waiter.resume() }
        drained = []
    }

    /// One transaction for the whole group; returns each batch's inserted flags.
    private func write(_ batches: [IngestBatch]) async throws -> [AppendResult] {
        var columns = EventArrays()
        for batch in batches {
            for row in 0..<batch.rows.count { columns.append(batch, row: row) }
        }
        let ids = columns.texts[EventColumn.eventID.rawValue]
        let names = columns.texts[EventColumn.eventName.rawValue], installs = columns.texts[EventColumn.installID.rawValue]
        let times = columns.integers[EventColumn.eventTimeMs.rawValue], received = columns.integers[EventColumn.receivedTimeMs.rawValue]
        return try await client.withTransaction(logger: logger) { connection in
            var inserted: Set<String> = []
            if !ids.isEmpty {
                let rows = try await connection.query(columns.insert(), logger: logger)
                for try await id in rows.decode(String.self) { inserted.insert(id) }
            }
            // A row counts as new only for its first occurrence in the group.
            var claimed: Set<String> = []
            var index = 0
            var results: [AppendResult] = []
            var firstSeen: [String: (first: Int64, last: Int64)] = [:]
            for batch in batches {
                var flags: [Bool] = []
                for _ in 0..<batch.rows.count {
                    let id = ids[index]
                    let new = inserted.contains(id) && claimed.insert(id).inserted
                    flags.append(new)
                    if new && names[index] == "app_open" {
                        let known = firstSeen[installs[index]]
                        firstSeen[installs[index]] = (min(known?.first ?? .max, times[index]), max(known?.last ?? .min, received[index]))
                    }
                    index += 1
                }
                let result = AppendResult(inserted: flags)
                results.append(result)
                for record in batch.rejected {
                    let codes = Array(Set(record.errors.map(\.code))).sorted().joined(separator: ",")
                    let errors = "[" + record.errors.map { "{\"code\":\"\($0.code)\",\"path\":\"\($0.path)\"}" }.joined(separator: ",") + "]"
                    _ = try await connection.query(
                        "INSERT INTO rejected_events(received_time_ms, key_id, event_name, error_codes, errors, byte_size) VALUES (\(batch.receivedTimeMs), \(batch.keyID), \(record.eventName), \(codes), \(errors), \(record.byteSize))",
                        logger: logger)
                }
                _ = try await connection.query(
                    "INSERT INTO batches(received_time_ms, key_id, sent_at_ms, events, accepted, duplicates, rejected, body_bytes) VALUES (\(batch.receivedTimeMs), \(batch.keyID), \(batch.sentAtMs), \(batch.rows.count + batch.rejected.count), \(result.accepted), \(result.duplicates), \(batch.rejected.count), \(batch.bodyBytes))",
                    logger: logger)
            }
            try await upsertFirstSeen(firstSeen, on: connection)
            return results
        }
    }

    /// Each install's first-seen time (HandzStore.InstallFirstSeen), from the group's new
    /// app_opens: one statement, installs in order (two nodes take the keys in the same order).
    private func upsertFirstSeen(_ firstSeen: [String: (first: Int64, last: Int64)], on connection: PostgresConnection) async throws {
        guard !firstSeen.isEmpty else { return }
        let installs = firstSeen.keys.sorted()
        let firsts = installs.map { firstSeen[$0]!.first }, lasts = installs.map { firstSeen[$0]!.last }
        _ = try await connection.query("""
            INSERT INTO install_first_seen (install_id, first_app_open_ms, last_received_ms)
            SELECT i, f, l FROM unnest(\(installs)::text[], \(firsts)::bigint[], \(lasts)::bigint[]) AS x(i, f, l) ORDER BY i COLLATE "C"
            ON CONFLICT (install_id) DO UPDATE SET
                first_app_open_ms = LEAST(install_first_seen.first_app_open_ms, excluded.first_app_open_ms),
                last_received_ms = GREATEST(install_first_seen.last_received_ms, excluded.last_received_ms)
            """, logger: logger)
    }

}

/// The group's rows as one array per column of `events` (`EventColumn`), and the one
/// `INSERT … SELECT FROM unnest(…)` that stores them: rows in `event_id` order (see
/// ``GroupWriter``), a row whose id is stored already skipped, the new ids returned.
struct EventArrays {
    /// Per column by `rawValue`: the values of a text-held column (empty for NULL), else empty.
    var texts: [[String]] = Array(repeating: [], count: EventColumn.allCases.count)
    /// Per column by `rawValue`: the values of an integer column, else empty.
    var integers: [[Int64]] = Array(repeating: [], count: EventColumn.allCases.count)

    mutating func append(_ batch: IngestBatch, row: Int) {
        for column in EventColumn.allCases {
            if column.kind == .integer {
                integers[column.rawValue].append(batch.integer(column, row: row))
            } else {
                texts[column.rawValue].append(batch.text(column, row: row) ?? "")
            }
        }
    }

    /// The statement, every array bound as one parameter.
    func insert() -> PostgresQuery {
        var bindings = PostgresBindings()
        var arrays: [String] = [], values: [String] = []
        for column in EventColumn.allCases {
            let alias = "c\(column.rawValue)"
            if column.kind == .integer {
                bindings.append(integers[column.rawValue])
                arrays.append("$\(arrays.count + 1)::bigint[]")
            } else {
                bindings.append(texts[column.rawValue])
                arrays.append("$\(arrays.count + 1)::text[]")
            }
            switch column.kind {
            case .json: values.append("\(alias)::jsonb")
            case _ where column.isNullable: values.append("NULLIF(\(alias), '')")
            default: values.append(alias)
            }
        }
        let names = EventColumn.allCases.map(\.name).joined(separator: ", ")
        let aliases = EventColumn.allCases.map { "c\($0.rawValue)" }.joined(separator: ", ")
        let sql = """
            INSERT INTO \(EventColumn.tableName) (\(names))
            SELECT \(values.joined(separator: ", "))
            FROM unnest(\(arrays.joined(separator: ", "))) AS x(\(aliases))
            ORDER BY c\(EventColumn.eventID.rawValue) COLLATE "C"
            ON CONFLICT (event_id) DO NOTHING
            RETURNING event_id
            """
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

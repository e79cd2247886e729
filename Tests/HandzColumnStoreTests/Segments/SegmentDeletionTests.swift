import Foundation
import HandzAnalyticsCore
@testable import HandzColumnStore
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Issue 34 §3: forget-user and retention on the segment engine reach every event, sealed or
/// still in a segment, with the SQLite engine's semantics: the same events through both engines,
/// the same request, the same rows after it (the fresh ids matched one to one), the same counts
/// and first-seen times; and no byte of the user's id or the re-keyed ids left in any file of the
/// store's directories.
@Suite struct SegmentDeletionTests {
    /// The log's events as requests of up to 250 events in receive order, each received when its
    /// last event was: what both engines are given.
    static func requests(_ path: String) throws -> [IngestBatch] {
        let database = try SQLiteDatabase(path: path, readOnly: true)
        let fields: [EventColumn] = [.eventName, .installID, .sessionID, .userID, .userState, .appVersion, .buildNumber, .platform, .osVersion,
                                     .deviceModel, .locale, .timezone, .networkState, .properties]
        let rows = try database.prepare("""
            SELECT event_id, event_time_ms, received_time_ms, \(fields.map(\.name).joined(separator: ", "))
            FROM events ORDER BY received_time_ms, rowid
            """).query { row -> (id: (UInt64, UInt64), time: Int64, received: Int64, fields: [EventColumn: String]) in
            let id = row.bytes(0)
            var values: [EventColumn: String] = [:]
            for (offset, field) in fields.enumerated() { if let text = row.text(Int32(3 + offset)) { values[field] = text } }
            return ((id.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }, id.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }), row.int64(1), row.int64(2), values)
        }
        return stride(from: 0, to: rows.count, by: 250).map { start in
            let group = rows[start..<min(rows.count, start + 250)]
            var eventRows = EventRows(capacity: group.count)
            for row in group { eventRows.append(eventID: row.id, eventTimeMs: row.time, fields: row.fields) }
            return IngestBatch(receivedTimeMs: group.last!.received, keyID: "key_ios_1", catalogVersion: RepositoryCatalog.catalog.version, sentAtMs: nil,
                               bodyBytes: 1_000, rows: eventRows, rejected: [])
        }
    }

    /// The SQLite engine's store given `requests`, and its column store sealed.
    static func sqliteStore(_ requests: [IngestBatch], in directory: URL) async throws -> SQLiteEventStore {
        let path = directory.appendingPathComponent("sqlite.sqlite").path
        let store = try SQLiteEventStore(path: path)
        for request in requests { _ = try await store.append(request) }
        try sealLog(path)
        return store
    }

    /// Seals `path`'s log into its column store (the journaled deletions too).
    static func sealLog(_ path: String) throws {
        try LogSealer().seal(try SQLiteDatabase(path: path), into: try ColumnStoreWriter(directory: ColumnStore.directory(forDatabase: path)))
    }

    /// Every row of the chunks (the session rollup's too) as one line per row, absent cells left
    /// out, with each value through `map`; sorted, so parts and row order do not matter. The
    /// rollup keeps each (day, install, session)'s latest row only: two seals of one session's
    /// events leave a rollup row in each one's part, which readers take the latest of.
    static func rows(_ directory: String, map: (String) -> String = { $0 }) throws -> [String] {
        let store = try ColumnStore(directory: directory)
        let dictionaries = try store.uuidDictionary()
        var lines: [String] = []
        var rollup: [String: (time: Int64, id: UUIDWords, line: String)] = [:]
        for entry in store.manifest.allChunks {
            let columns = try store.chunk(entry).allColumns().sorted { $0.name < $1.name }
            for row in 0..<entry.rows {
                var cells = ["\(entry.event)/\(entry.day)"]
                for column in columns {
                    let value: String? = switch column.values {
                    case .codes(let codes): dictionaries.text(codes[row], type: column.type)
                    case .integers(let words): IntegerCell.value(words[row]).map(String.init)
                    case .times(let times): String(times[row])
                    case .ids(let ids): ids[row].canonicalText
                    }
                    if let value { cells.append("\(column.name)=\(map(value))") }
                }
                guard entry.event == SessionRollup.eventName, case .times(let times)? = columns.first(where: { $0.name == ColumnName.eventTime })?.values,
                      case .ids(let ids)? = columns.first(where: { $0.name == ColumnName.eventID })?.values else {
                    lines.append(cells.joined(separator: "|"))
                    continue
                }
                let key = "\(entry.day)|" + cells.filter { $0.hasPrefix(ColumnName.installID + "=") || $0.hasPrefix(ColumnName.sessionID + "=") }.joined(separator: "|")
                if let known = rollup[key], (known.time, known.id) >= (times[row], ids[row]) { continue }
                rollup[key] = (times[row], ids[row], cells.joined(separator: "|"))
            }
        }
        return (lines + rollup.values.map(\.line)).sorted()
    }

    /// The ids `after` holds that `before` did not: the fresh ids a de-identification made.
    static func freshIDs(_ before: [String], _ after: [String]) -> Set<String> {
        let ids = { (lines: [String]) in Set(lines.flatMap { $0.split(separator: "|").compactMap { cell -> String? in
            let value = cell.split(separator: "=", maxSplits: 1).last.map(String.init) ?? ""
            return UUIDWords(lowercaseString: value) == nil ? nil : value
        } }) }
        return ids(after).subtracting(ids(before))
    }

    /// The segment engine's store given `requests`, the first `sealedRequests` of them sealed and
    /// the others left in segments.
    static func segmentStore(_ requests: [IngestBatch], in directory: URL, sealedRequests: Int) async throws -> SegmentEventStore {
        let store = try SegmentEventStore(path: directory.appendingPathComponent("segments.sqlite").path)
        for (offset, request) in requests.enumerated() {
            _ = try await store.append(request)
            if offset + 1 == sealedRequests { _ = try store.columns.withWriter(lockWait: .seconds(5)) { writer, _ in try store.seal(into: writer) } }
        }
        return store
    }

    /// Each row of `lines` (``rows(_:map:)``) that is an event, by its event id: column to value.
    static func byEventID(_ lines: [String]) -> [String: [String: String]] {
        var out: [String: [String: String]] = [:]
        for line in lines where !line.hasPrefix(SessionRollup.eventName) {
            var cells: [String: String] = [:]
            for cell in line.split(separator: "|").dropFirst() {
                let parts = cell.split(separator: "=", maxSplits: 1).map(String.init)
                cells[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            out[cells[ColumnName.eventID] ?? ""] = cells
        }
        return out
    }

    /// The same simulated events given to both engines: the SQLite engine's store (sealed) and the
    /// segment engine's, whose requests after the first `sealedShare` of them wait in segments.
    struct TwoEngines {
        let data: SimulatedStore
        let requests: [IngestBatch]
        let sqlite: SQLiteEventStore
        let segments: SegmentEventStore

        init(installs: Int, days: Int, seed: UInt64, sealedShare: Double) async throws {
            data = try SimulatedStore(installs: installs, days: days, seed: seed)
            requests = try SegmentDeletionTests.requests(data.path)
            sqlite = try await SegmentDeletionTests.sqliteStore(requests, in: data.directory)
            segments = try await SegmentDeletionTests.segmentStore(requests, in: data.directory,
                                                                   sealedRequests: Int(Double(requests.count) * sealedShare))
        }
    }

    @Test("forget-user on the segment engine: the rows, counts and first-seen times the SQLite engine gives, sealed and unsealed events alike, and no byte of the ids left")
    func forgetUserAgreesWithTheSQLiteEngine() async throws {
        let engines = try await TwoEngines(installs: 40, days: 5, seed: 11, sealedShare: 0.5)
        let (data, sqlite, segments) = (engines.data, engines.sqlite, engines.segments)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        #expect(try segments.hasUnsealedEvents(), "half the events still wait in segments")
        let segmentColumns = ColumnStore.directory(forDatabase: segments.path)

        let log = try SQLiteDatabase(path: data.path)
        let user = try #require(try log.prepare("SELECT user_id FROM events WHERE user_id IS NOT NULL GROUP BY user_id ORDER BY COUNT(*) DESC, user_id LIMIT 1")
            .query { $0.text(0) }.first ?? nil)
        let installs = try log.prepare("SELECT DISTINCT install_id FROM events WHERE user_id = ?1").query([.text(user)]) { $0.text(0) ?? "" }
        let sessions = try log.prepare("SELECT DISTINCT session_id FROM events WHERE user_id = ?1").query([.text(user)]) { $0.text(0) ?? "" }
        #expect(!installs.isEmpty && !sessions.isEmpty)
        let sqliteColumns = ColumnStore.directory(forDatabase: sqlite.path)
        let before = try Self.rows(sqliteColumns)

        // The same request on both engines, the same time.
        let now = data.toMs + 86_400_000
        _ = try sqlite.requestDeletionNow(userID: user, nowMs: now)
        let sqliteClaim = try #require(try sqlite.claimDeletionNow(owner: "test", canRewriteLake: false, oldVersionsDueMs: now, storeDueMs: now, nowMs: now, leaseMs: 60_000))
        let expected = try sqlite.deidentifyNow(sqliteClaim, nowMs: now)
        _ = try await segments.requestDeletion(userID: user, nowMs: now)
        let claim = try #require(try await segments.claimDeletion(owner: "test", canRewriteLake: false, oldVersionsDueMs: now, storeDueMs: now, nowMs: now, leaseMs: 60_000))
        let result = try segments.deidentifyNow(claim, nowMs: now)
        #expect(result == expected)
        #expect(result.events > 0 && result.sessions > 0)
        #expect(try !segments.hasUnsealedEvents(), "the step sealed what waited")

        // The SQLite engine's de-identified log sealed from nothing, each of its fresh ids named
        // as the segment engine named the same row's: the same rows, exactly.
        try Self.sealLog(sqlite.path)
        let fromSQLite = try Self.rows(sqliteColumns)
        let fromSegments = try Self.rows(segmentColumns)
        let sqliteFresh = Self.freshIDs(before, fromSQLite), segmentFresh = Self.freshIDs(before, fromSegments)
        #expect(sqliteFresh.count == segmentFresh.count && sqliteFresh.count == result.installs + result.sessions)
        var naming: [String: String] = [:]
        let segmentByID = Self.byEventID(fromSegments)
        for (id, cells) in Self.byEventID(fromSQLite) {
            for (column, value) in cells where sqliteFresh.contains(value) { naming[value] = segmentByID[id]?[column] }
        }
        #expect(Set(naming.values) == segmentFresh, "every fresh id pairs with one of the segment engine's")
        #expect(fromSegments == (try Self.rows(sqliteColumns) { naming[$0] ?? $0 }))

        // First-seen times: the same, by the same naming.
        let firstSeen = { (path: String, map: [String: String]) in
            try SQLiteDatabase(path: path, readOnly: true).prepare("SELECT install_id, first_app_open_ms, last_received_ms FROM install_first_seen")
                .query { "\(map[$0.text(0) ?? ""] ?? $0.text(0) ?? "") \($0.int64(1)) \($0.int64(2))" }.sorted()
        }
        #expect(try firstSeen(segments.path, [:]) == (try firstSeen(sqlite.path, naming)))

        // A retry of the step (as after a crash between the publish and the ledger) finds no row
        // with the id; the lake hours noted before the publish stay in the ledger.
        #expect(try segments.deidentifyNow(claim, nowMs: now).events == 0)
        #expect(try await segments.deletionRequest(id: claim.request.id)?.lakeHours == expected.hours)

        // Old versions: the column store is this engine's only copy and stays, even with a file
        // its manifest does not list (a writer killed before removing what it replaced).
        segments.columns.release()
        FileManager.default.createFile(atPath: segmentColumns + "/leftover.chunk", contents: Data([1, 2, 3]))
        _ = try await segments.reclaimOldVersions(nowMs: now)
        #expect(FileManager.default.fileExists(atPath: segmentColumns + "/" + ColumnManifest.fileName))
        #expect(try Self.rows(segmentColumns) == fromSegments)
        try FileManager.default.removeItem(atPath: segmentColumns + "/leftover.chunk")

        // Then the bytes: no file under the store's directories holds the ids.
        let settled = try await segments.settleDeletion(id: claim.request.id, failure: nil, nowMs: now)
        #expect(settled?.state == .completed)
        await segments.close()
        sqlite.closeNow()
        let patterns = ColumnDeletionTests.patterns([user] + installs + sessions)
        for directory in [segmentColumns, SegmentEventStore.segmentsDirectory(forDatabase: segments.path), SegmentEventStore.idsDirectory(forDatabase: segments.path)] {
            #expect(try ColumnDeletionTests.filesHolding(patterns, in: directory) == [], "\(directory)")
        }
        // The SQLite file keeps the ledger without the user id (secure_delete, the log truncated).
        for name in ["segments.sqlite", "segments.sqlite-wal"] where FileManager.default.fileExists(atPath: data.directory.path + "/" + name) {
            let bytes = [UInt8](try Data(contentsOf: data.directory.appendingPathComponent(name)))
            #expect(!ColumnDeletionTests.patterns([user]).contains { ColumnStoreWriterTests.contains(bytes, $0) }, "\(name)")
        }

        // A repeated request is a no-op: nothing stored carries the id any more.
        let reopened = try SegmentEventStore(path: segments.path)
        #expect(try await reopened.requestDeletion(userID: user, nowMs: now + 1).created == false)
        await reopened.close()
    }

    @Test("retention on the segment engine: the rows and counts the SQLite engine keeps, events still in segments included, and dedupe still exact")
    func retentionAgreesWithTheSQLiteEngine() async throws {
        let engines = try await TwoEngines(installs: 40, days: 6, seed: 12, sealedShare: 2.0 / 3)
        let (data, requests, sqlite, segments) = (engines.data, engines.requests, engines.sqlite, engines.segments)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let cutoff = SimulatedStore.fromMs + 5 * 43_200_000  // 2.5 days in

        let expected = try await sqlite.purge(receivedBeforeMs: cutoff, nowMs: data.toMs)
        let purged = try await segments.purge(receivedBeforeMs: cutoff, nowMs: data.toMs)
        #expect(purged == expected)
        #expect(purged.events > 0 && purged.batches == requests.filter { $0.receivedTimeMs < cutoff }.count)
        try Self.sealLog(sqlite.path)
        let kept = try Self.rows(ColumnStore.directory(forDatabase: segments.path)), expectedRows = try Self.rows(ColumnStore.directory(forDatabase: sqlite.path))
        #expect(kept == expectedRows)

        #expect(try await segments.tables.stats(fromMs: .min, toMs: .max).requests == requests.count - purged.batches)
        // Dedupe still knows the ids of what is kept: the last request again stores nothing.
        #expect(try await segments.append(requests.last!).accepted == 0)
        sqlite.closeNow()
        await segments.close()
    }
}

import Foundation
import HandzAnalyticsCore
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// The analytical layer of the embedded store (issue 15) against a real SQLite file: it holds
/// every stored event exactly once after a catch-up, follows de-identification, retention and
/// purge in the same transaction as the log, and rebuilds from the log.
@Suite struct AnalyticalLayerTests {
    static let user = "6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70"

    /// A store in a fresh directory. `idleFoldRows` 0 (the default here): no idle folding by the
    /// writer, so a test folds by explicit catch-ups and counts them.
    func withStore(idleFoldRows: Int = 0, _ body: (SQLiteEventStore, SQLiteDatabase, String) async throws -> Void) async throws {
        let directory = try temporaryDirectory("handz-layer")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("events.sqlite").path
        var configuration = StoreConfiguration()
        configuration.idleFoldRows = idleFoldRows
        let store = try SQLiteEventStore(path: path, configuration: configuration)
        let database = try SQLiteDatabase(path: path)
        try database.registerUUIDFunctions()
        try await body(store, database, path)
        store.closeNow()
    }

    /// The stored events as (event id, name, time, install, session, user, properties), from the
    /// log's columns or from the layer through its `events` view — the two must be equal.
    static func logRows(_ database: SQLiteDatabase) throws -> [String] {
        try rows(database, from: "main.events")
    }

    static func layerRows(_ database: SQLiteDatabase) throws -> [String] {
        try database.execute(AnalyticalLayerSchema.eventsView)
        return try rows(database, from: "temp.events")
    }

    /// Whether `analytic_session_days` holds exactly the (install, session, UTC day) groups of the
    /// layer's rows with each group's last event — what the incremental upkeep must keep.
    static func rollupMatchesLayer(_ database: SQLiteDatabase) throws -> Bool {
        let derived = """
            SELECT install, session, day, event_time_ms, event_id FROM (
              SELECT install, session, event_time_ms / 86400000 AS day, event_time_ms, event_id,
                     ROW_NUMBER() OVER (PARTITION BY install, session, event_time_ms / 86400000 ORDER BY event_time_ms DESC, event_id DESC) AS r
              FROM main.analytic_events) WHERE r = 1
            """
        let kept = "SELECT install, session, day, last_time_ms, last_event_id FROM main.analytic_session_days"
        let differences = try database.scalar("SELECT (SELECT COUNT(*) FROM (\(derived) EXCEPT \(kept))) + (SELECT COUNT(*) FROM (\(kept) EXCEPT \(derived)))")
        let rows = try database.scalar("SELECT COUNT(*) FROM main.analytic_session_days") ?? 0
        return differences == 0 && rows > 0
    }

    static func rows(_ database: SQLiteDatabase, from table: String) throws -> [String] {
        let columns = ["hex(event_id)", "event_name", "event_time_ms", "received_time_ms", "install_id", "session_id", "COALESCE(user_id, '-')"]
            + AnalyticalLayerSchema.contextColumns + ["properties"]
        return try database.prepare("SELECT \(columns.joined(separator: " || '|' || ")) FROM \(table) ORDER BY event_id").query { $0.text(0) ?? "" }
    }

    @Test("after a catch-up every stored event is in the layer exactly once, whatever the batch size; resent ids stay single")
    func exactlyOnce() async throws {
        try await withStore { store, database, _ in
            _ = try await store.append(StoreTests.batch(StoreTests.rows((0..<50).map { (1, UInt64($0)) })))
            // Duplicates within and across batches: the log stores each id once, so does the layer.
            _ = try await store.append(StoreTests.batch(StoreTests.rows((40..<90).map { (1, UInt64($0)) } + [(1, 95), (1, 95)], userID: nil)))
            var status = try store.catchUpAnalyticalLayerNow(batchRows: 7)
            #expect(status.folded == 91 && status.lagRows == 0)
            #expect(try Self.layerRows(database) == Self.logRows(database))
            #expect(try Self.rollupMatchesLayer(database), "the session rollup sums the layer")
            // Later events are folded by the next catch-up, the earlier ones not again.
            _ = try await store.append(StoreTests.batch(StoreTests.rows((0..<30).map { (2, UInt64($0)) }), receivedMs: 1_772_000_100_000))
            #expect(try store.catchUpAnalyticalLayerNow(maxBatches: 1, batchRows: 10) == AnalyticalLayerStatus(folded: 10, lagRows: 20))
            status = try store.catchUpAnalyticalLayerNow()
            #expect(status.folded == 20 && status.lagRows == 0)
            #expect(try database.scalar("SELECT COUNT(*) FROM analytic_events") == 121)
            #expect(try Self.layerRows(database) == Self.logRows(database))
            #expect(try Self.rollupMatchesLayer(database), "the session rollup sums the layer")
            // Rebuilt from the log: the same rows.
            try store.emptyAnalyticalLayerNow()
            #expect(try database.scalar("SELECT COUNT(*) FROM analytic_events") == 0)
            #expect(try store.catchUpAnalyticalLayerNow().folded == 121)
            #expect(try Self.layerRows(database) == Self.logRows(database))
            #expect(try Self.rollupMatchesLayer(database), "the session rollup sums the layer")
        }
    }

    @Test("the writer folds new events into the layer while it is idle")
    func idleFold() async throws {
        try await withStore(idleFoldRows: 40) { store, database, _ in
            _ = try await store.append(StoreTests.batch(StoreTests.rows((0..<300).map { (9, UInt64($0)) })))
            // The writer folds 40 rows at a time after the commit; wait (bounded) until it is done.
            for _ in 0..<200 where try AnalyticalLayer.lag(database) > 0 { try await Task.sleep(for: .milliseconds(25)) }
            #expect(try AnalyticalLayer.lag(database) == 0)
            #expect(try database.scalar("SELECT COUNT(*) FROM analytic_events") == 300)
            #expect(try store.catchUpAnalyticalLayerNow().folded == 0)
        }
    }

    @Test("the layer keeps ids as 16 bytes and the envelope strings once: smaller rows than the log")
    func compact() async throws {
        try await withStore { store, database, _ in
            _ = try await store.append(StoreTests.batch(StoreTests.rows((0..<200).map { (3, UInt64($0)) })))
            try store.catchUpAnalyticalLayerNow()
            #expect(try database.scalar("SELECT COUNT(*) FROM event_contexts") == 1)
            #expect(try database.scalar("SELECT length(install) FROM analytic_events LIMIT 1") == 16)
            #expect(try database.scalar("SELECT typeof(install) = 'blob' AND typeof(session) = 'blob' AND typeof(user) = 'blob' FROM analytic_events LIMIT 1") == 1)
        }
    }

    @Test("forget-user changes the layer in the store step's transaction: no byte of the id, as text or as 16 bytes, stays on disk")
    func forgetUser() async throws {
        try await withStore { store, database, path in
            let other = "9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a"
            _ = try await store.append(StoreTests.batch(StoreTests.rows((0..<300).map { (7, UInt64($0)) }, userID: Self.user)))
            _ = try await store.append(StoreTests.batch(StoreTests.rows((0..<10).map { (8, UInt64($0)) }, userID: other,
                                                                         install: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d")))
            try store.catchUpAnalyticalLayerNow()
            // Events after the catch-up, still in the log only: the next fold reads them de-identified.
            _ = try await store.append(StoreTests.batch(StoreTests.rows((300..<310).map { (7, UInt64($0)) }, userID: Self.user)))
            let request = try await Deleting.forget(store, Self.user)
            #expect(request.eventsDeidentified == 310)
            #expect(try database.scalar("SELECT COUNT(*) FROM analytic_events WHERE user IS NULL") == 300)
            try store.catchUpAnalyticalLayerNow()
            #expect(try Self.layerRows(database) == Self.logRows(database))
            #expect(try Self.rollupMatchesLayer(database), "the session rollup sums the layer")
            #expect(try database.scalar("SELECT COUNT(*) FROM analytic_events WHERE user IS NULL") == 310)
            #expect(try database.scalar("SELECT COUNT(*) FROM analytic_events WHERE user = uuid_blob(?1)", [.text(other)]) == 10)
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            store.closeNow()
            let blob = Data(try database.prepare("SELECT uuid_blob(?1)").query([.text(Self.user)]) { $0.blob(0) }.first ?? [])
            #expect(blob.count == 16)
            for suffix in ["", "-wal", "-shm"] {
                guard let bytes = FileManager.default.contents(atPath: path + suffix) else { continue }
                #expect(bytes.range(of: Data(Self.user.utf8)) == nil, "text found in \(suffix)")
                #expect(bytes.range(of: blob) == nil, "16 bytes found in \(suffix)")
            }
        }
    }

    @Test("retention and purge drop the layer's rows with the log's; after an emptied log, new rows are still folded")
    func purge() async throws {
        try await withStore { store, database, _ in
            _ = try await store.append(StoreTests.batch(StoreTests.rows((0..<20).map { (4, UInt64($0)) }), receivedMs: 1_000))
            _ = try await store.append(StoreTests.batch(StoreTests.rows((0..<5).map { (5, UInt64($0)) }), receivedMs: 5_000))
            try store.catchUpAnalyticalLayerNow()
            try store.purge(receivedBeforeMs: 2_000)
            #expect(try database.scalar("SELECT COUNT(*) FROM analytic_events") == 5)
            #expect(try Self.layerRows(database) == Self.logRows(database))
            #expect(try Self.rollupMatchesLayer(database), "the session rollup sums the layer")
            // Everything goes; SQLite then hands out rowids from 1 again, below the old watermark.
            try store.purge(receivedBeforeMs: 10_000)
            #expect(try database.scalar("SELECT COUNT(*) FROM analytic_events") == 0)
            #expect(try AnalyticalLayer.watermark(database) == 0)
            _ = try await store.append(StoreTests.batch(StoreTests.rows((0..<3).map { (6, UInt64($0)) }), receivedMs: 20_000))
            #expect(try store.catchUpAnalyticalLayerNow().folded == 3)
            #expect(try Self.layerRows(database) == Self.logRows(database))
            #expect(try Self.rollupMatchesLayer(database), "the session rollup sums the layer")
        }
    }

    @Test("uuid_blob and uuid_text are inverses on canonical ids, accept upper case, and pass anything else through")
    func uuidFunctions() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.registerUUIDFunctions()
        let text: (String) throws -> String? = { sql in try database.prepare(sql).query { $0.text(0) }.first ?? nil }
        #expect(try text("SELECT uuid_text(uuid_blob('\(Self.user)'))") == Self.user)
        #expect(try text("SELECT uuid_text(uuid_blob('\(Self.user.uppercased())'))") == Self.user)
        #expect(try text("SELECT hex(uuid_blob('\(Self.user)'))") == Self.user.replacingOccurrences(of: "-", with: "").uppercased())
        #expect(try text("SELECT uuid_text(uuid_blob('not-a-uuid'))") == "not-a-uuid")
        #expect(try text("SELECT uuid_blob('6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b7g')") == "6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b7g")
        #expect(try database.scalar("SELECT uuid_blob(NULL) IS NULL AND uuid_text(NULL) IS NULL") == 1)
        // Byte order of the blobs is the text order of the ids.
        #expect(try database.scalar("SELECT (uuid_blob('0fffffff-ffff-4fff-bfff-ffffffffffff') < uuid_blob('a0000000-0000-4000-8000-000000000000'))") == 1)
    }

    @Test("UUIDWords order like SQLite orders the 16-byte blobs, and read only the text uuid_text writes")
    func uuidWords() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.registerUUIDFunctions()
        let ids = ["00000000-0000-4000-8000-0000000000ff", "00000000-0000-4000-8000-000000000100", "0fffffff-ffff-4fff-bfff-ffffffffffff",
                   "a0000000-0000-4000-8000-000000000000", "ffffffff-ffff-4fff-bfff-fffffffffffe"]
        var words: [UUIDWords] = []
        for id in ids.shuffled() {
            let statement = try database.prepare("SELECT uuid_blob('\(id)')")
            #expect(try statement.step())
            words.append(try #require(UUIDWords(bytes: statement.bytes(0))))
            #expect(Self.words(id) == words.last)
            statement.reset()
        }
        let sqliteOrder = try database.prepare("SELECT uuid_text(b) FROM (\(ids.map { "SELECT uuid_blob('\($0)') AS b" }.joined(separator: " UNION ALL "))) ORDER BY b")
            .query { $0.text(0) ?? "" }
        #expect(sqliteOrder == ids)
        #expect(words.sorted() == ids.map(Self.words))
        // Upper case and anything but a canonical id read as nothing: they never equal a stored 16-byte id's text.
        for text in [ids[3].uppercased(), "not-a-uuid", String(ids[0].dropLast())] {
            #expect(Self.words(text) == nil)
        }
    }

    static func words(_ text: String) -> UUIDWords? {
        Array(text.utf8).withUnsafeBytes { UUIDWords(lowercaseText: $0) }
    }
}

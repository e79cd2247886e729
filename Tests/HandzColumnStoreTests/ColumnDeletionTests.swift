import Foundation
import HandzAnalyticsCore
@testable import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Issue 33 §4: the log's deletions reach the column store by copy on write. Forget-user
/// (de-identification) and retention, journaled by the store in their own transactions
/// (`LogRewrites`), rewrite only the chunks that hold the changed rows; the store then equals a
/// seal of the log from nothing, and no byte of a forgotten id is left in any file of it.
@Suite struct ColumnDeletionTests {
    /// The text and the 16 bytes of each id.
    static func patterns(_ ids: [String]) -> [[UInt8]] {
        ids.flatMap { text -> [[UInt8]] in
            let words = text.utf8.withContiguousStorageIfAvailable { UUIDWords(lowercaseText: UnsafeRawBufferPointer($0)) }!!
            return [Array(text.utf8), UUIDWords.bytes(words)]
        }
    }

    /// Every file of `directory` that holds one of `patterns`.
    static func filesHolding(_ patterns: [[UInt8]], in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { name in
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
            return patterns.contains { ColumnStoreWriterTests.contains(bytes, $0) }
        }
    }

    /// The chunks of a seal of `data`'s log from nothing, as ``ColumnStoreWriterTests/contents(_:)`` gives them.
    static func freshSeal(_ data: SimulatedStore) throws -> [String: [String: [String]]] {
        let fresh = data.directory.appendingPathComponent("fresh.columns").path
        try LogSealer().seal(try SQLiteDatabase(path: data.path), into: try ColumnStoreWriter(directory: fresh))
        let expected = try ColumnStoreWriterTests.contents(fresh)
        // Where the copy differs, which chunk and columns (names only, never values).
        let copy = try ColumnStoreWriterTests.contents(data.columnsDirectory)
        for key in Set(expected.keys).union(copy.keys).sorted() where expected[key] != copy[key] {
            let fresh = expected[key] ?? [:], copied = copy[key] ?? [:]
            print("chunk \(key) differs: columns only in a fresh seal \(Set(fresh.keys).subtracting(copied.keys).sorted()), "
                  + "only in the copy \(Set(copied.keys).subtracting(fresh.keys).sorted()), "
                  + "with other values \(Set(fresh.keys).intersection(copied.keys).filter { fresh[$0] != copied[$0] }.sorted())")
        }
        return expected
    }

    @Test("forget-user: only the chunks of the user's installs are rewritten, the store equals a fresh seal, and no byte of the user id or the re-keyed installs is left")
    func forgetUserRewritesOnlyTheUsersChunks() throws {
        let data = try SimulatedStore(installs: 40, days: 5, seed: 11)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let log = try SQLiteDatabase(path: data.path)
        let user = try #require(try log.prepare("SELECT user_id FROM events WHERE user_id IS NOT NULL GROUP BY user_id ORDER BY COUNT(*) DESC, user_id LIMIT 1")
            .query { $0.text(0) }.first ?? nil)
        let installs = try log.prepare("SELECT DISTINCT install_id FROM events WHERE user_id = ?1").query([.text(user)]) { $0.text(0) ?? "" }
        #expect(!installs.isEmpty)
        let sessions = try log.prepare("SELECT DISTINCT session_id FROM events WHERE user_id = ?1").query([.text(user)]) { $0.text(0) ?? "" }
        let before = try ColumnStore(directory: data.columnsDirectory).manifest

        let store = try SQLiteEventStore(path: data.path)
        let now = data.toMs + 86_400_000
        _ = try store.requestDeletionNow(userID: user, nowMs: now)
        let claim = try #require(try store.claimDeletionNow(owner: "test", canRewriteLake: false, oldVersionsDueMs: now, storeDueMs: now, nowMs: now, leaseMs: 60_000))
        let result = try store.deidentifyNow(claim, nowMs: now)
        #expect(result.events > 0)
        #expect(try log.scalar("SELECT COUNT(*) FROM log_rewrites") == 1, "the store step journaled its rows")

        let outcome = try data.seal()
        #expect(!outcome.startedOver, "the journal covers the change: no reseal from nothing")
        #expect(outcome.rewrittenChunks > 0 && outcome.rewrittenChunks < before.chunks.count, "\(outcome.rewrittenChunks) of \(before.chunks.count) chunks rewritten")
        let after = try ColumnStore(directory: data.columnsDirectory).manifest
        let kept = Set(after.chunks.map(\.file)).intersection(before.chunks.map(\.file))
        #expect(kept.count == before.chunks.count - outcome.rewrittenChunks, "every other chunk keeps its file")
        #expect(try ColumnStoreWriterTests.contents(data.columnsDirectory) == (try Self.freshSeal(data)))
        #expect(try Self.filesHolding(Self.patterns([user] + installs + sessions), in: data.columnsDirectory) == [])
        // The old-versions step: the copy is current and stays; the journal's rowids, which link
        // the user's rows, go.
        _ = try store.reclaimOldVersionsNow(nowMs: now)
        store.closeNow()
        #expect(FileManager.default.fileExists(atPath: data.columnsDirectory + "/" + ColumnManifest.fileName))
        #expect(try log.scalar("SELECT COUNT(*) FROM log_rewrites") == 0)
    }

    @Test("retention: chunks older than the cutoff go whole, the straddling ones are rewritten, the store equals a fresh seal, and no byte of an install retention removed is left")
    func retentionDropsAndRewritesChunks() throws {
        let data = try SimulatedStore(installs: 40, days: 6, seed: 12)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let log = try SQLiteDatabase(path: data.path)
        let installsBefore = Set(try log.prepare("SELECT DISTINCT install_id FROM events").query { $0.text(0) ?? "" })
        let before = try ColumnStore(directory: data.columnsDirectory).manifest
        let cutoff = SimulatedStore.fromMs + 5 * 43_200_000  // 2.5 days in

        let store = try SQLiteEventStore(path: data.path)
        let purged = try store.purge(receivedBeforeMs: cutoff, nowMs: data.toMs)
        #expect(purged.events > 0)
        store.closeNow()
        let installsAfter = Set(try log.prepare("SELECT DISTINCT install_id FROM events").query { $0.text(0) ?? "" })
        let gone = installsBefore.subtracting(installsAfter).sorted()

        let outcome = try data.seal()
        #expect(!outcome.startedOver)
        #expect(outcome.rewrittenChunks > 0)
        let after = try ColumnStore(directory: data.columnsDirectory).manifest
        let untouched = before.chunks.filter { $0.day >= LogSealer.day(of: cutoff) + 1 }
        #expect(!untouched.isEmpty && untouched.allSatisfy { entry in after.chunks.contains { $0.file == entry.file } },
                "the days after the cutoff keep their files")
        #expect(try ColumnStoreWriterTests.contents(data.columnsDirectory) == (try Self.freshSeal(data)))
        #expect(try ColumnStore(directory: data.columnsDirectory).rowCount == Int(try #require(try log.scalar("SELECT COUNT(*) FROM events"))))
        if !gone.isEmpty { #expect(try Self.filesHolding(Self.patterns(gone), in: data.columnsDirectory) == []) }
    }

    @Test("retention that empties the log, then new events under reused rowids: the next seal holds exactly the new events")
    func retentionOfEverythingThenNewRows() throws {
        let data = try SimulatedStore(installs: 20, days: 3, seed: 13)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let log = try SQLiteDatabase(path: data.path)
        let cutoff = data.toMs + 86_400_000
        try log.execute("CREATE TABLE kept AS SELECT * FROM events WHERE event_time_ms < \(SimulatedStore.fromMs + 86_400_000)")
        let store = try SQLiteEventStore(path: data.path)
        try store.purge(receivedBeforeMs: cutoff, nowMs: cutoff)
        store.closeNow()
        #expect(try log.scalar("SELECT COUNT(*) FROM events") == 0)
        // SQLite numbers these from 1 again: under the column store's old watermark.
        try log.execute("""
            INSERT INTO events (event_id, event_name, event_time_ms, received_time_ms, install_id, session_id, user_id, user_state, app_version, build_number,
              platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties)
            SELECT event_id, event_name, event_time_ms, \(cutoff) + 1, install_id, session_id, user_id, user_state, app_version,
              build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties FROM kept
            """)
        let outcome = try data.seal()
        #expect(!outcome.startedOver)
        #expect(try ColumnStore(directory: data.columnsDirectory).rowCount == Int(try #require(try log.scalar("SELECT COUNT(*) FROM kept"))))
        #expect(try ColumnStoreWriterTests.contents(data.columnsDirectory) == (try Self.freshSeal(data)))
    }

    @Test("the old-versions step removes a column copy that has not applied the store step")
    func oldVersionsStepRemovesACopyBehind() throws {
        let data = try SimulatedStore(installs: 10, days: 2, seed: 14)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let store = try SQLiteEventStore(path: data.path)
        #expect(try store.reclaimOldVersionsNow(nowMs: data.toMs) == 0)
        #expect(FileManager.default.fileExists(atPath: data.columnsDirectory), "a current copy stays")
        try store.purge(receivedBeforeMs: SimulatedStore.fromMs + 86_400_000, nowMs: data.toMs)
        _ = try store.reclaimOldVersionsNow(nowMs: data.toMs)
        store.closeNow()
        #expect(!FileManager.default.fileExists(atPath: data.columnsDirectory), "a copy behind the log goes")
    }

    @Test("the old-versions step removes a current column copy that holds a file its manifest does not list (a writer killed before it removed what it replaced)")
    func oldVersionsStepRemovesLeftovers() throws {
        let data = try SimulatedStore(installs: 10, days: 2, seed: 15)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let store = try SQLiteEventStore(path: data.path)
        defer { store.closeNow() }
        let manifest = try ColumnStore(directory: data.columnsDirectory).manifest
        let leftover = data.columnsDirectory + "/" + manifest.chunks[0].file + ".retired"
        // While a writer holds the store, its own unpublished parts are not leftovers.
        do {
            let writer = try ColumnStoreWriter(directory: data.columnsDirectory)
            try FileManager.default.copyItem(atPath: data.columnsDirectory + "/" + manifest.chunks[0].file, toPath: leftover)
            _ = try store.reclaimOldVersionsNow(nowMs: data.toMs)
            #expect(FileManager.default.fileExists(atPath: leftover), "kept while a writer works")
            _ = writer
        }
        _ = try store.reclaimOldVersionsNow(nowMs: data.toMs)
        #expect(!FileManager.default.fileExists(atPath: data.columnsDirectory), "a copy with leftovers goes")
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.directory.path).allSatisfy { !$0.contains(".discarded-") })
    }
}

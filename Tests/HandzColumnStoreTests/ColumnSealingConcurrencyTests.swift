import Foundation
import HandzAnalysis
import HandzAnalyticsCore
@testable import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// What frequent sealing beside a live store needs (`serve`, issue 33 §3–§4): one writer at a
/// time across processes, a deletion committed while a seal reads never published back, and the
/// open day's parts merged by size, not at every seal.
@Suite struct ColumnSealingConcurrencyTests {
    @Test("a second writer waits for the first; with a short wait it is refused with column_store_busy")
    func oneWriterAtATime() throws {
        let data = try SimulatedStore(installs: 5, days: 1, seed: 11)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let lockName = URL(fileURLWithPath: data.columnsDirectory).lastPathComponent + ".lock"
        var first: ColumnStoreWriter? = try ColumnStoreWriter(directory: data.columnsDirectory)
        let refusal = #expect(throws: ColumnStoreError.self) { _ = try ColumnStoreWriter(directory: data.columnsDirectory, lockWait: .milliseconds(100)) }
        #expect(refusal?.code == .busy)
        #expect(refusal?.file == lockName)
        first = nil
        // Released with the first: the next one opens at once.
        _ = try ColumnStoreWriter(directory: data.columnsDirectory, lockWait: .milliseconds(100))
    }

    @Test("a deletion committed while a seal reads the log: the seal publishes nothing, and the next one starts over without the deleted rows")
    func deletionDuringSeal() throws {
        let data = try SimulatedStore(installs: 30, days: 3, seed: 12)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let database = try SQLiteDatabase(path: data.path)
        // New rows to seal: day 1's events again, a day later, under new ids.
        try data.appendCopyOfFirstDays(1)
        let before = try ColumnStore(directory: data.columnsDirectory).manifest
        let forgotten = try #require(try database.prepare("SELECT install_id FROM events ORDER BY install_id LIMIT 1").query { $0.text(0) }.first ?? nil)
        let deleter = try SQLiteDatabase(path: data.path)
        var sealer = LogSealer()
        sealer.rowsPerPart = 100
        var deleted = false
        // The progress callback runs while the seal's read snapshot is open: the deletion commits then.
        let outcome = try sealer.seal(database, into: try ColumnStoreWriter(directory: data.columnsDirectory)) { _ in
            guard !deleted else { return }
            deleted = true
            do { try deleter.execute("DELETE FROM events WHERE install_id = '\(forgotten)'") } catch { Issue.record("the deletion failed: \(error)") }
        }
        #expect(deleted)
        #expect(outcome.abandoned)
        #expect(try ColumnStore(directory: data.columnsDirectory).manifest == before, "nothing published")
        let next = try LogSealer().seal(database, into: try ColumnStoreWriter(directory: data.columnsDirectory))
        #expect(next.startedOver)
        let remaining = try #require(try database.scalar("SELECT COUNT(*) FROM events"))
        #expect(try ColumnStore(directory: data.columnsDirectory).rowCount == Int(remaining))
    }

    @Test("sealed every few rows with up to 8 parts a day: parts are merged by size, and the numbers stay the SQL's")
    func tieredParts() throws {
        let data = try SimulatedStore(installs: 40, days: 2, seed: 13)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let later = data.directory.appendingPathComponent("later.sqlite").path
        let database = try SQLiteDatabase(path: later)
        try StoreSchema.migrate(database, nowMs: 0)
        try database.execute("ATTACH '\(data.path)' AS source")
        let total = try #require(try database.scalar("SELECT COUNT(*) FROM source.events"))
        let directory = ColumnStore.directory(forDatabase: later)
        var sealer = LogSealer()
        sealer.maxPartsPerDay = 8
        var sealed: Int64 = 0
        let step = total / 40 + 1
        while sealed < total {
            try database.execute("INSERT INTO events SELECT * FROM source.events WHERE rowid > \(sealed) AND rowid <= \(sealed + step) ORDER BY rowid")
            sealed += step
            try sealer.seal(database, into: try ColumnStoreWriter(directory: directory))
        }
        let manifest = try ColumnStore(directory: directory).manifest
        var parts: [String: Int] = [:]
        for entry in manifest.chunks { parts["\(entry.event)/\(entry.day)", default: 0] += 1 }
        #expect(parts.values.allSatisfy { $0 <= 8 }, "at most 8 parts a day")
        #expect(parts.values.contains { $0 > 1 }, "the open days keep several parts")
        // The numbers: every KPI and funnel per install on the parted store equal the SQL's.
        try database.execute("DETACH source")
        let log = try StoreAnalysis(path: later, catalog: RepositoryCatalog.catalog)
        let engine = ColumnPanels(store: try ColumnStore(directory: directory), catalog: RepositoryCatalog.catalog, firstSeen: InstallFirstSeenTimes())
        #expect(try ColumnStore(directory: directory).rowCount == Int(total))
        let (from, to) = (SimulatedStore.fromMs, SimulatedStore.fromMs + 2 * 86_400_000)
        for funnel in RepositoryCatalog.catalog.funnels {
            let query = FunnelQuery(funnel: funnel, fromMs: from, toMs: to)
            #expect(try engine.answer(.funnel(query)) == .funnel(try log.funnel(query)), "\(funnel.id)")
        }
        for kpi in RepositoryCatalog.catalog.kpis where kpi.measure != .everyWeek && !kpi.measure.rawValue.hasPrefix("weekly") {
            let query = KPIQuery(kpi: kpi, fromMs: from, toMs: to)
            #expect(try engine.answer(.kpi(query)) == .kpi(try log.kpi(query)), "\(kpi.id)")
        }
    }

    @Test("a live store keeps install_first_seen between pages and reads it again after any commit to the SQLite file")
    func firstSeenKeptUntilACommit() throws {
        let data = try SimulatedStore(installs: 6, days: 1, seed: 13)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        _ = try data.seal()
        let live = LiveColumnStore(databasePath: data.path, catalog: RepositoryCatalog.catalog)
        // (The simulated log is written row by row, without the table's rows: each is added here.)
        let writer = try SQLiteDatabase(path: data.path)
        let first = "00000000-0000-4000-8000-00000000f1a7", second = "00000000-0000-4000-8000-00000000f1a8"
        try writer.execute("INSERT INTO install_first_seen (install_id, first_app_open_ms, last_received_ms) VALUES ('\(first)', 1, 1)")
        let before = try live.firstSeenTable()
        #expect(before.byUUID.count == 1)
        try writer.execute("INSERT INTO install_first_seen (install_id, first_app_open_ms, last_received_ms) VALUES ('\(second)', 2, 2)")
        let after = try live.firstSeenTable()
        #expect(after.byUUID.count == 2, "the commit made the next page read the table again")
        #expect(after.byUUID[try #require(UUIDWords(lowercaseString: second))] == 2)
        // Through a page's engine, read on first use.
        let engine = try #require(try live.engine())
        #expect(try engine.firstSeen.table().byUUID.count == 2)
    }
}

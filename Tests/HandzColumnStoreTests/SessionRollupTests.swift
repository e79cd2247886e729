import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// The per-session rollup written at sealing (``SessionRollup``): crash-free sessions read from it
/// give the SQL's numbers whatever the parts, and a store sealed before it existed (format 1) is
/// read from every row, then resealed with it.
@Suite struct SessionRollupTests {
    let catalog = RepositoryCatalog.catalog

    /// Crash-free sessions of [fromMs, toMs) on the column store of the log at `path`, and by the SQL on the log.
    func crashFree(path: String, fromMs: Int64, toMs: Int64) throws -> (columns: KPIReport?, log: KPIReport) {
        let kpi = try #require(catalog.kpis.first { $0.id == "crash_free_sessions" })
        let query = KPIQuery(kpi: kpi, fromMs: fromMs, toMs: toMs, actor: .install)
        let engine = ColumnPanels(store: try ColumnStore(directory: ColumnStore.directory(forDatabase: path)), catalog: catalog,
                                  firstSeen: try InstallFirstSeenTimes(database: try SQLiteDatabase(path: path, readOnly: true)))
        var columns: KPIReport?
        if case .kpi(let report)? = try engine.answer(.kpi(query)) { columns = report }
        return (columns, try StoreAnalysis(path: path, catalog: catalog).kpi(query))
    }

    /// The rollup chunks' rows, and whether a chunk lists an (install, session) twice.
    func rollupRows(_ store: ColumnStore) throws -> (rows: Int, repeated: Bool) {
        var rows = 0
        var repeated = false
        for entry in store.manifest.sessionChunks {
            let columns = try store.chunk(entry).allColumns()
            guard case .codes(let installs)? = columns.first(where: { $0.name == ColumnName.installID })?.values,
                  case .codes(let sessions)? = columns.first(where: { $0.name == ColumnName.sessionID })?.values else { continue }
            rows += installs.count
            if Set(zip(installs, sessions).map { [$0, $1] }).count != installs.count { repeated = true }
        }
        return (rows, repeated)
    }

    @Test("sealed an eighth at a time keeping up to three parts a day, as serve seals: one rollup row per session and day, and crash-free sessions as the SQL gives it")
    func partedSealsAgree() throws {
        let data = try SimulatedStore(installs: 60, days: 8, seed: 91)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let whole = try ColumnStore(directory: data.columnsDirectory)
        let wholeRollup = try rollupRows(whole)
        #expect(!wholeRollup.repeated)
        #expect(wholeRollup.rows * 4 < whole.rowCount, "the rollup holds far fewer rows than the events: \(wholeRollup.rows) of \(whole.rowCount)")

        // A second log filled an eighth at a time, sealed after each into a store that keeps up to three parts.
        let later = data.directory.appendingPathComponent("later.sqlite").path
        let database = try SQLiteDatabase(path: later)
        try StoreSchema.migrate(database, nowMs: 0)
        try database.execute("ATTACH '\(data.path)' AS source")
        let total = try #require(try database.scalar("SELECT MAX(rowid) FROM source.events"))
        var sealer = LogSealer()
        sealer.maxPartsPerDay = 3
        var sawParts = false
        for step in 1...8 {
            try database.execute("INSERT INTO events SELECT * FROM source.events WHERE rowid > \(total * Int64(step - 1) / 8) AND rowid <= \(total * Int64(step) / 8) ORDER BY rowid")
            try sealer.seal(database, into: try ColumnStoreWriter(directory: ColumnStore.directory(forDatabase: later)))
            let store = try ColumnStore(directory: ColumnStore.directory(forDatabase: later))
            if Set(store.manifest.sessionChunks.map(\.day)).count < store.manifest.sessionChunks.count { sawParts = true }
            #expect(try !rollupRows(store).repeated, "step \(step): a merged rollup chunk lists each session once")
        }
        #expect(sawParts, "some day kept more than one rollup part")
        try database.execute("INSERT INTO install_first_seen SELECT * FROM source.install_first_seen")
        for (fromMs, toMs) in [(SimulatedStore.fromMs, data.toMs), (SimulatedStore.fromMs + 2 * 86_400_000, data.toMs - 86_400_000)] {
            let (columns, log) = try crashFree(path: later, fromMs: fromMs, toMs: toMs)
            #expect(columns == log)
            #expect((log.denominator ?? 0) > 0)
            #expect(try crashFree(path: data.path, fromMs: fromMs, toMs: toMs).columns == log, "the store sealed at once gives the same")
        }
    }

    @Test("a store sealed before the rollup (format 1) answers crash-free sessions from every row; its next seal starts over and writes the rollup")
    func formatOneStoreIsResealed() throws {
        let data = try SimulatedStore(installs: 40, days: 6, seed: 92)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let range = (SimulatedStore.fromMs + 86_400_000, data.toMs)
        let expected = try crashFree(path: data.path, fromMs: range.0, toMs: range.1).log
        // The manifest as a format-1 writer left it: no rollup listed (its files then unlisted, as a crash leaves files).
        let manifestPath = data.columnsDirectory + "/" + ColumnManifest.fileName
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as? [String: Any])
        object["format"] = 1
        object.removeValue(forKey: "session_chunks")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: manifestPath))

        let old = try ColumnStore(directory: data.columnsDirectory)
        #expect(!old.manifest.hasSessionRollup && old.manifest.sessionChunks.isEmpty)
        #expect(try crashFree(path: data.path, fromMs: range.0, toMs: range.1).columns == expected, "read from every row")

        let outcome = try data.seal()
        #expect(outcome.startedOver)
        let resealed = try ColumnStore(directory: data.columnsDirectory)
        #expect(resealed.manifest.format == ColumnManifest.currentFormat)
        #expect(!resealed.manifest.sessionChunks.isEmpty)
        #expect(try crashFree(path: data.path, fromMs: range.0, toMs: range.1).columns == expected, "read from the rollup")
    }
}

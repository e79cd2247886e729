import Foundation
import HandzAnalysis
import HandzColumnStore
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// The catalog versions of a range (the notes printed beside a funnel) from the manifest's
/// per-chunk rollup, and from the rows of the chunks a range cuts, are SQLite's.
@Suite struct CatalogVersionRollupTests {
    @Test("the catalog versions of a range, from the manifest's rollup and the rows of cut chunks, are SQLite's")
    func catalogVersionsOfARange() throws {
        let data = try SimulatedStore(installs: 30, days: 4, seed: 10)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let database = try SQLiteDatabase(path: data.path)
        // Two releases: the events of one hour of day 1 and all of day 3 under an older catalog.
        let day = Int64(86_400_000), start = SimulatedStore.fromMs
        try database.execute("""
            UPDATE events SET catalog_version = '1.2.0'
            WHERE event_time_ms BETWEEN \(start + day + 3_600_000) AND \(start + day + 7_200_000) OR event_time_ms >= \(start + 3 * day)
            """)
        #expect(try data.seal().startedOver, "the log changed under the watermark")
        let store = try ColumnStore(directory: data.columnsDirectory)
        // The log, as edited.
        let log = try StoreAnalysis(path: data.path, catalog: RepositoryCatalog.catalog)
        let ranges: [(Int64, Int64)] = [(start, start + 4 * day), (start, start + day), (start + day, start + 2 * day),
                                        (start + day + 5_000_000, start + 2 * day), (start + 2 * day, start + 4 * day), (start + 90 * day, start + 91 * day)]
        for (from, to) in ranges {
            #expect(try store.catalogVersions(fromMs: from, toMs: to) == log.catalogVersions(fromMs: from, toMs: to), "\(from)–\(to)")
        }
        #expect(try store.catalogVersions(fromMs: start, toMs: start + 4 * day).count == 2)
    }
}

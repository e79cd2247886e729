import Foundation
import HandzAnalysis
import HandzAnalyticsCore
@testable import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Issue 33, "Proof": kill -9 at each step of sealing, merging and publishing (the real `layer`
/// command, ended by SIGKILL at the step through `HANDZ_FAULT_KILL_AT`) leaves a column store that
/// opens, reads every chunk, and holds exactly the rows of before or of after the seal; the next
/// seal ends where a seal that never crashed ends, with the funnels of the SQL.
@Suite(.serialized) struct SealCrashTests {
    @Test("kill -9 at each step of a seal: the store holds the rows of before or after, and the next seal ends as a clean one does",
          arguments: SealFault.steps)
    func killedAt(_ step: String) throws {
        let data = try SimulatedStore(installs: 30, days: 4, seed: 21)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let database = try SQLiteDatabase(path: data.path)
        // New rows on days already sealed: the seal writes parts, merges them with the live
        // chunks of days 1–2 and retires those.
        try data.appendCopyOfFirstDays(2)
        let before = try ColumnStore(directory: data.columnsDirectory)
        let total = Int(try #require(try database.scalar("SELECT COUNT(*) FROM events")))
        #expect(total > before.rowCount)

        try Self.layerKilled(at: step, data)

        // Opens, every block of every live chunk reads, and the rows are before's or after's.
        let crashed = try ColumnStore(directory: data.columnsDirectory)
        for entry in crashed.manifest.chunks { _ = try crashed.chunk(entry).allColumns() }
        let expected = step == "manifest-published" ? total : before.rowCount
        #expect(crashed.rowCount == expected, "\(step): \(crashed.rowCount) rows, expected \(expected)")
        #expect(crashed.manifest.sealedThroughRowID == (step == "manifest-published" ? Int64(total) : before.manifest.sealedThroughRowID))

        // The next seal, not killed, leaves the store a clean seal leaves.
        let resumed = try CommandRunner.run(["layer", "--db", data.path])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let after = try ColumnStore(directory: data.columnsDirectory)
        #expect(after.rowCount == total)
        let live = Set(after.manifest.allChunks.map(\.file) + [ColumnManifest.fileName, after.manifest.uuids.file, after.manifest.strings.file])
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: data.columnsDirectory)) == live, "\(step): no file the manifest does not list")
        try Self.expectFunnelsAgree(after, data, step)
    }

    @Test("kill -9 at each step of a seal that rewrites chunks after retention: the store holds the rows of before or after, and the next seal equals a fresh one",
          arguments: SealFault.rewriteSteps)
    func killedWhileRewriting(_ step: String) throws {
        let data = try SimulatedStore(installs: 30, days: 4, seed: 22)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let database = try SQLiteDatabase(path: data.path)
        let before = try ColumnStore(directory: data.columnsDirectory)
        let store = try SQLiteEventStore(path: data.path)
        try store.purge(receivedBeforeMs: SimulatedStore.fromMs + 3 * 43_200_000, nowMs: data.toMs)
        store.closeNow()
        let total = Int(try #require(try database.scalar("SELECT COUNT(*) FROM events")))

        try Self.layerKilled(at: step, data)
        let crashed = try ColumnStore(directory: data.columnsDirectory)
        for entry in crashed.manifest.allChunks { _ = try crashed.chunk(entry).allColumns() }
        _ = try crashed.uuidDictionary()
        #expect(crashed.rowCount == (step == "manifest-published" ? total : before.rowCount), "\(step): \(crashed.rowCount) rows")

        let resumed = try CommandRunner.run(["layer", "--db", data.path])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try ColumnStoreWriterTests.contents(data.columnsDirectory) == (try ColumnDeletionTests.freshSeal(data)), "\(step)")
        let after = try ColumnStore(directory: data.columnsDirectory)
        let live = Set(after.manifest.allChunks.map(\.file) + [ColumnManifest.fileName, after.manifest.uuids.file, after.manifest.strings.file])
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: data.columnsDirectory)) == live, "\(step): no file the manifest does not list")
        try Self.expectFunnelsAgree(after, data, step)
    }

    /// Runs `layer --db` on `data`'s store, killed with SIGKILL when it reaches `step`.
    static func layerKilled(at step: String, _ data: SimulatedStore) throws {
        let killed = try ChildProcess(executable: "/usr/bin/env",
                                      arguments: ["HANDZ_FAULT_KILL_AT=\(step)", CommandRunner.product("handz-analytics").path, "layer", "--db", data.path],
                                      standardOutput: .nullDevice, standardError: .nullDevice)
        #expect(killed.wait(timeout: 120))
        #expect(killed.terminationReason == .uncaughtSignal && killed.terminationStatus == SIGKILL, "\(step): the seal was killed at the step")
    }

    /// F0 and F1 on `store` equal the SQL builders' on the log.
    static func expectFunnelsAgree(_ store: ColumnStore, _ data: SimulatedStore, _ step: String) throws {
        let log = try StoreAnalysis(path: data.path, catalog: RepositoryCatalog.catalog)
        for funnel in RepositoryCatalog.catalog.funnels where ["F0", "F1"].contains(funnel.id) {
            let query = FunnelQuery(funnel: funnel, fromMs: SimulatedStore.fromMs, toMs: data.toMs)
            #expect(try ColumnFunnel(store: store, catalog: RepositoryCatalog.catalog).run(query) == (try log.funnelBySQL(query)), "\(step): \(funnel.id)")
        }
    }
}

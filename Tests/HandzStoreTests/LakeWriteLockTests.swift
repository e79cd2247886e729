import Foundation
@testable import HandzLake
import HandzStore
import HandzTestSupport
import Testing

/// One writer at a time per lake (issue 14): the scheduled export of `serve --lake`, the deletion
/// worker, retention and `export lake` from another process never interleave, so none can put
/// back a partition read before a deletion over the one the deletion rewrote.
@Suite struct LakeWriteLockTests {
    @Test("an export waits while another writer holds the lake's lock, then runs")
    func exportWaitsForTheLock() async throws {
        let subject = try await StoreConformanceTests.subject(.sqlite)
        defer { subject.cleanup() }
        try await LakeExportTests.fill(subject.store)
        let root = try temporaryDirectory("handz-lake-lock")
        defer { try? FileManager.default.removeItem(at: root) }
        let held = try await LakeWriteLock.acquire(root)
        let exporter = LakeExporter(root: root)
        let store = subject.store
        let export = Task { try await exporter.export(from: store, receivedFromMs: LakeExportTests.hour0, toMs: LakeExportTests.hour0 + 5 * LakeExportTests.hour) }
        try await Task.sleep(for: .milliseconds(400))
        #expect(try exporter.existingPartitions().isEmpty, "the export wrote while the lock was held")
        held.release()
        let summary = try await export.value
        #expect(summary.written == 3)
        #expect(try exporter.existingPartitions().count == 3)
        await subject.store.close()
    }
}

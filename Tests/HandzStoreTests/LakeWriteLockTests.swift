import Foundation
@testable import HandzLake
import HandzStore
import HandzTestSupport
import Testing

/// One writer at a time per lake (issue 14): the scheduled export of `serve --lake`, the deletion
/// worker, retention and `export lake` from another process never interleave, so none can put
/// back a partition read before a deletion over the one the deletion rewrote.
///
/// Each test waits for an event — the export has opened the lake's lock file, so the next thing it
/// does is try the lock — and never for a length of time.
@Suite struct LakeWriteLockTests {
    /// How many descriptors of this process are open on `root`'s lock file (the holder's, and a
    /// contender's once it reached the lock).
    static func lockDescriptors(_ root: URL) -> Int {
        let lockFile = "/" + root.lastPathComponent + "/.lake.lock"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) ?? "").hasSuffix(lockFile) }.count
    }

    /// Waits (bounded: 30 s, checking every 5 ms) until a second descriptor is open on the lock
    /// file: the export has reached the lock.
    static func contenderReachedLock(_ root: URL) async throws -> Bool {
        for _ in 0..<6_000 {
            if lockDescriptors(root) >= 2 { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    static func filledStore() async throws -> StoreConformanceTests.Subject {
        let subject = try await StoreConformanceTests.subject(.sqlite)
        try await LakeExportTests.fill(subject.store)
        return subject
    }

    static func export(_ exporter: LakeExporter, _ store: any EventStore) async throws -> LakeExportSummary {
        try await exporter.export(from: store, receivedFromMs: LakeExportTests.hour0, toMs: LakeExportTests.hour0 + 5 * LakeExportTests.hour)
    }

    @Test("an export that finds the lake locked writes nothing while it waits: cancelled there, it leaves the lake untouched")
    func exportWaitsWhileLocked() async throws {
        let subject = try await Self.filledStore()
        defer { subject.cleanup() }
        let root = try temporaryDirectory("handz-lake-lock")
        defer { try? FileManager.default.removeItem(at: root) }
        let held = try await LakeWriteLock.acquire(root)
        defer { held.release() }
        let exporter = LakeExporter(root: root)
        let store = subject.store
        let export = Task { try await Self.export(exporter, store) }
        try #require(try await Self.contenderReachedLock(root), "the export never reached the lock")
        // The export is at the lock, which is held. Only the wait for the lock ends at a cancel:
        // past it, the store's read runs detached and the writer looks at no cancellation, so an
        // export that had not waited would finish, write its three partitions and return them.
        export.cancel()
        let outcome = await export.result
        #expect(throws: CancellationError.self, "the export ran while the lock was held") { try outcome.get() }
        #expect(try exporter.existingPartitions().isEmpty, "the export wrote while the lock was held")
        #expect(Self.lockDescriptors(root) == 1, "the export kept the lock file open after giving up")
        await subject.store.close()
    }

    @Test("an export waiting on the lock runs once the lock is released")
    func exportRunsAfterRelease() async throws {
        let subject = try await Self.filledStore()
        defer { subject.cleanup() }
        let root = try temporaryDirectory("handz-lake-lock")
        defer { try? FileManager.default.removeItem(at: root) }
        let held = try await LakeWriteLock.acquire(root)
        let exporter = LakeExporter(root: root)
        let store = subject.store
        let export = Task { try await Self.export(exporter, store) }
        try #require(try await Self.contenderReachedLock(root), "the export never reached the lock")
        held.release()
        // Bounded: an export still waiting after 60 s is cancelled (its wait for the lock ends
        // there) and the test fails rather than hangs.
        let bound = Task {
            try await Task.sleep(for: .seconds(60))
            export.cancel()
        }
        defer { bound.cancel() }
        let summary = try #require(try? await export.value, "the export did not run within 60 s of the release")
        #expect(summary.written == 3)
        #expect(try exporter.existingPartitions().count == 3)
        await subject.store.close()
    }
}

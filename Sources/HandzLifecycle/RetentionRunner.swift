import HandzLake
import HandzStore

/// Applies the retention period to every copy (issue 14 §4; CH33-P3): the store's events,
/// quarantine records, receipts, completed deletion requests and audit rows received before the
/// cutoff, and the lake's partitions that end at or before it (the partition holding the cutoff is
/// rebuilt from the purged store, so it keeps only what is younger).
public struct RetentionRunner: Sendable {
    public let store: any EventStore
    public let lake: LakeExporter?
    public let policy: RetentionPolicy

    public init(store: any EventStore, lake: LakeExporter?, policy: RetentionPolicy) {
        self.store = store
        self.lake = lake
        self.policy = policy
    }

    /// What one run removed.
    public struct Outcome: Sendable, Equatable {
        public var cutoffMs: Int64
        public var store: PurgeResult
        public var lakePartitionsRemoved = 0
    }

    /// Purges what is older than the policy allows at `nowMs`; nil when retention is off.
    public func run(nowMs: Int64) async throws -> Outcome? {
        guard let cutoff = policy.cutoffMs(nowMs: nowMs) else { return nil }
        let purged = try await store.purge(receivedBeforeMs: cutoff, nowMs: nowMs)
        var outcome = Outcome(cutoffMs: cutoff, store: purged)
        if let lake {
            outcome.lakePartitionsRemoved = try await lake.removePartitions(endingBy: cutoff)
            let straddling = LakePartition(containing: cutoff)
            if straddling.startMs < cutoff, try lake.existingPartitions().contains(straddling) {
                _ = try await lake.export(from: store, receivedFromMs: straddling.startMs, toMs: straddling.endMs)
            }
        }
        return outcome
    }
}

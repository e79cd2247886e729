import HandzAnalyticsCore
import HandzStore

/// Seals the segment log's closed segments into the column store (issue 34 §3), the way
/// ``LogSealer`` seals the SQLite log's rows: every record of the segments after the manifest's
/// `sealedThroughSegment` is read once, in order; every ``rowsPerPart`` rows, the rows held are
/// built into one chunk per (event, UTC day), a chunk at a time (`SegmentRows`), and written as
/// parts; the day's parts are merged, and everything is published in one manifest swap that
/// records the last segment sealed. Then the segments' event ids are
/// written as a run of the ``EventIDIndex`` (dedupe stays exact once the segments are gone), and
/// only then are the segments removed.
///
/// Crash safety, step by step: a crash before the publish leaves the segments and the old
/// manifest, so the next seal does it again; after the publish, the next seal skips the segments
/// the manifest covers (their chunks are live) but still gives their ids to the index (a run
/// written twice holds the same ids) and removes them. No event is sealed twice or lost.
public struct SegmentSealer {
    /// Rows held in builders before they are written as parts.
    public var rowsPerPart = 1_000_000
    /// Chunks an (event, day) may keep before they are merged (``LogSealer/maxPartsPerDay``).
    public var maxPartsPerDay = 1

    public struct Outcome: Sendable, Equatable {
        /// Events sealed into chunks now.
        public var sealedRows = 0
        /// Segments removed (sealed now, or by a seal that crashed before removing them).
        public var removedSegments = 0
        /// The manifest's last sealed segment after the seal.
        public var sealedThroughSegment: UInt64 = 0
    }

    public init() {}

    /// Seals `segments` (closed segments of `log`'s directory, oldest first) into `writer`, gives
    /// their ids to `index`, and hands each segment's records to `sealed` once the chunks are
    /// published and before the segments go (the receipts, quarantine records and first-seen times
    /// for the store's tables; the callee makes it idempotent by the segment's number, since a crash
    /// after it and before the removal hands the same segment again).
    /// - Parameters:
    ///   - segments: closed segments, oldest first.
    ///   - directory: the segment log's directory.
    ///   - writer: the column store's writer, held by the caller.
    ///   - index: the id index the segments' ids go to.
    ///   - sealed: gets each segment's records, once its chunks are published.
    ///   - remove: removes the segments through a sequence number once they are sealed and their
    ///     ids persisted (the log's owner: ``SegmentWriter/removeSealed(through:)``).
    @discardableResult
    public func seal(_ segments: [SegmentLog.Segment], directory: String, into writer: ColumnStoreWriter, index: EventIDIndex,
                     sealed: (_ records: [BatchRecord], _ segment: UInt64) throws -> Void = { _, _ in },
                     remove: (UInt64) throws -> Void) throws -> Outcome {
        guard let last = segments.last?.sequence else { return Outcome(sealedThroughSegment: writer.manifest.sealedThroughSegment) }
        let watermark = writer.manifest.sealedThroughSegment
        var sessions = SessionRollup.Builder()
        var rows = SegmentRows()
        var outcome = Outcome()
        var ids: [UUIDWords] = []
        var received = (min: Int64.max, max: Int64.min)
        // Segments are decoded on the workers, up to two ahead of the rows taken from them
        // (``ParallelWork/pipeline(count:window:build:consume:)``): decoding was most of what the
        // seal did on one core besides the chunks (perf, issue 36). The cost: up to four decoded
        // segments of 64 MiB held at once, beside the rows waiting for a flush.
        try ParallelWork.pipeline(count: segments.count, window: ParallelWork.workers, build: { index in
            try Self.records(of: segments[index], in: directory)
        }, consume: { index, records in
            let alreadySealed = segments[index].sequence <= watermark
            for record in records {
                for row in 0..<record.rows.count { ids.append(record.rows.eventID(row).withUnsafeBytes { UUIDWords(orderingBytes: $0) }) }
                received = (min(received.min, record.receivedTimeMs), max(received.max, record.receivedTimeMs))
                guard !alreadySealed else { continue }
                rows.add(record)
                outcome.sealedRows += record.rows.count
                if rows.count >= rowsPerPart {
                    try rows.flush(sessions: &sessions, into: writer)
                    for builder in sessions.takeBuilders() { try writer.write(builder) }
                }
            }
        })
        if last > watermark {
            try rows.flush(sessions: &sessions, into: writer)
            for builder in sessions.takeBuilders() { try writer.write(builder) }
            try writer.mergeParts(maxParts: maxPartsPerDay)
            SealFault.reached("segments-merged")
            try writer.publish(sealedThroughRowID: writer.manifest.sealedThroughRowID, sealedThroughSegment: last)
            SealFault.reached("segments-published")
        }
        // The records again, from the page cache: holding every record of a long backlog until the
        // publish would hold all of its rows.
        try ParallelWork.pipeline(count: segments.count, window: ParallelWork.workers, build: { index in
            try Self.records(of: segments[index], in: directory)
        }, consume: { index, records in
            try sealed(records, segments[index].sequence)
        })
        if !ids.isEmpty { try index.persist(ids, throughSegment: last, minReceivedMs: received.min, maxReceivedMs: received.max) }
        SealFault.reached("segment-ids-persisted")
        try remove(last)
        outcome.removedSegments = segments.count
        outcome.sealedThroughSegment = writer.manifest.sealedThroughSegment
        return outcome
    }

    /// The records of one closed segment.
    static func records(of segment: SegmentLog.Segment, in directory: String) throws -> [BatchRecord] {
        try SegmentLog.records(path: directory + "/" + segment.fileName, name: segment.fileName, length: segment.bytes)
    }
}

import Foundation
import HandzAnalyticsCore
import HandzStore

/// `handz-analytics import`: loads an NDJSON file into the store through the ingestion
/// endpoint's own path — the same validator, the same `BatchProcessor`, the same
/// `EventStore.append` — in batches of up to 1,000 lines, under the key id `import`.
/// Rejected lines go to the quarantine (where and why, never what) and are never stored;
/// retried lines (an `event_id` already stored) count as duplicates.
///
/// It lives in `HandzIngest`, not in the command line, because it *is* the ingestion path, fed
/// from a file instead of HTTP: it uses the batch processor this module keeps internal.
public struct EventImporter {
    /// What an import did. Never holds a value from the input.
    public struct Summary: Sendable, Equatable {
        public var lines = 0
        public var accepted = 0
        public var duplicates = 0
        public var rejected = 0
        /// Rejected events per error code (an event with two codes counts under both).
        public var rejectedByCode: [String: Int] = [:]
    }

    public static let keyID = "import"
    public static let maxLinesPerBatch = 1_000
    /// Batches handed to the store at once, so its group commit can merge them.
    static let batchesInFlight = 4

    let store: any EventStore
    let catalog: CompiledCatalog
    let clock: @Sendable () -> Date
    /// Called when the store refuses batches as `overloaded` — a segment store whose unsealed
    /// ids reached their bound (`SegmentWriter.Limits.maxPendingIDs`, 8 M), which an import that
    /// seals only at its end reaches past 8 M events — to make room (`import` seals what it
    /// wrote); the refused batches are then sent again, up to ``roomAttempts`` times. Nothing of a
    /// refused batch was written, and ids are deduplicated besides. nil: `overloaded` fails the
    /// import.
    public var makeRoom: (@Sendable () async throws(StoreError) -> Void)?
    /// How many times in a row the refused batches are sent again after making room.
    static let roomAttempts = 3

    public init(store: any EventStore, catalog: Catalog, clock: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.catalog = CompiledCatalog(catalog)
        self.clock = clock
    }

    /// Imports every non-blank line of `handle` (read in large chunks, never whole). `progress` is
    /// called after each commit with the summary so far and the bytes read.
    public func importLines(from handle: FileHandle, progress: (Summary, Int) -> Void = { _, _ in }) async throws(StoreError) -> Summary {
        var summary = Summary()
        var validator = EventValidator(catalog: catalog)
        var chunk = LineChunk()
        var carry: [UInt8] = []
        var pending: [IngestBatch] = []
        var inFlight: Task<[(IngestBatch, Result<AppendResult, StoreError>)], Never>?
        var atEnd = false
        var bytesRead = 0
        while !atEnd {
            // A read error is an error, not the end of the file: a truncated import must not pass.
            let data: Data?
            do { data = try handle.read(upToCount: 4 << 20) } catch { throw StoreError.unavailable("cannot read the input") }
            if let data, !data.isEmpty {
                carry.append(contentsOf: data)
                bytesRead += data.count
            } else {
                atEnd = true
                if !carry.isEmpty { carry.append(0x0A) }
            }
            var start = 0
            while let newline = carry[start...].firstIndex(of: 0x0A) {
                chunk.add(carry[start..<newline])
                start = newline + 1
                if chunk.count == Self.maxLinesPerBatch {
                    pending.append(batch(&chunk, &validator, &summary))
                    if pending.count == Self.batchesInFlight {
                        // The previous batches' commit is awaited only now: validating these
                        // overlapped it (the store writes and syncs on its own thread).
                        if let previous = inFlight {
                            try await settle(await previous.value, into: &summary)
                            progress(summary, bytesRead)
                        }
                        inFlight = commit(pending)
                        pending = []
                    }
                }
            }
            carry.removeFirst(start)
        }
        if chunk.count > 0 { pending.append(batch(&chunk, &validator, &summary)) }
        if let previous = inFlight {
            try await settle(await previous.value, into: &summary)
            progress(summary, bytesRead)
        }
        try await settle(await commit(pending).value, into: &summary)
        progress(summary, bytesRead)
        return summary
    }

    /// Validates one chunk of lines into a batch for the store.
    func batch(_ chunk: inout LineChunk, _ validator: inout EventValidator, _ summary: inout Summary) -> IngestBatch {
        var processor = BatchProcessor(capacity: chunk.count)
        let ids = BatchProcessor.FieldIDs(catalog)
        chunk.bytes.withUnsafeBytes { processor.process($0, events: chunk.ranges, validator: &validator, ids: ids) }
        summary.lines += chunk.count
        summary.rejected += processor.rejections.count
        for rejection in processor.rejections {
            for code in Set(rejection.issues.map(\.code.rawValue)) { summary.rejectedByCode[code, default: 0] += 1 }
        }
        let batch = IngestBatch(
            receivedTimeMs: Int64(clock().timeIntervalSince1970 * 1000), keyID: Self.keyID, catalogVersion: catalog.version,
            sentAtMs: nil, bodyBytes: chunk.bytes.count, rows: processor.rows, rejected: processor.rejected
        )
        chunk = LineChunk()
        return batch
    }

    /// Appends `batches` concurrently, in a task the caller awaits when it needs the answers
    /// (each with its batch, so a refused one can be sent again).
    func commit(_ batches: [IngestBatch]) -> Task<[(IngestBatch, Result<AppendResult, StoreError>)], Never> {
        let store = self.store
        return Task {
            await withTaskGroup(of: (IngestBatch, Result<AppendResult, StoreError>).self) { group in
                for batch in batches {
                    group.addTask {
                        do throws(StoreError) { return (batch, .success(try await store.append(batch))) } catch { return (batch, .failure(error)) }
                    }
                }
                var collected: [(IngestBatch, Result<AppendResult, StoreError>)] = []
                for await result in group { collected.append(result) }
                return collected
            }
        }
    }

    /// Adds a commit's answers to `summary`. Batches refused as `overloaded` are sent again
    /// after ``makeRoom`` (when set); any other failure, or `overloaded` past ``roomAttempts``,
    /// is thrown. No commit is in flight while this runs, so making room races no append.
    func settle(_ results: [(IngestBatch, Result<AppendResult, StoreError>)], into summary: inout Summary) async throws(StoreError) {
        var results = results
        for attempt in 0...Self.roomAttempts {
            var refused: [IngestBatch] = []
            for (batch, result) in results {
                switch result {
                case .success(let appended):
                    summary.accepted += appended.accepted
                    summary.duplicates += appended.duplicates
                case .failure(.overloaded) where makeRoom != nil && attempt < Self.roomAttempts:
                    refused.append(batch)
                case .failure(let error):
                    throw error
                }
            }
            guard !refused.isEmpty, let makeRoom else { return }
            try await makeRoom()
            results = await commit(refused).value
        }
    }
}

/// Up to 1,000 non-blank lines packed in one buffer, with each line's range.
struct LineChunk {
    var bytes: [UInt8] = []
    var ranges: [Range<Int>] = []
    var count: Int { ranges.count }

    mutating func add(_ line: ArraySlice<UInt8>) {
        var line = line
        if line.last == 0x0D { line = line.dropLast() }
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
        let start = bytes.count
        bytes.append(contentsOf: line)
        ranges.append(start..<bytes.count)
    }
}

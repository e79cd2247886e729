import Foundation
import HandzColumnStore
import HandzStore

/// Appends synthetic batches (100 rows, one install each, random UUIDv4 event ids, ~500-byte
/// rows) to a fresh store from several concurrent tasks, the way the endpoint does, and reports
/// rows per second durably committed. Options: --rows N --concurrency C --db PATH --drop-index NAME…
/// `--engine segments` (issue 34) measures the segment log instead of the SQLite log: group
/// commit with dedupe by ``EventIDIndex``, and a sealer beside it every `--seal-ms` milliseconds
/// (0: none) turning closed segments into column chunks, as `serve` will.
struct StoreBenchmark {
    var rows = 1_000_000
    var concurrency = 32
    var path = "/tmp/handz-store-bench.sqlite"
    var dropIndexes: [String] = []
    var synchronous = StoreConfiguration.Synchronous.full
    var engine = "sqlite"
    var sealMs = 1_000

    init(arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next() ?? ""
            switch argument {
            case "--rows": rows = Int(value) ?? rows
            case "--concurrency": concurrency = Int(value) ?? concurrency
            case "--db": path = value
            case "--drop-index": dropIndexes.append(value)
            case "--synchronous": synchronous = StoreConfiguration.Synchronous(rawValue: value) ?? synchronous
            case "--engine": engine = value
            case "--seal-ms": sealMs = Int(value) ?? sealMs
            default: HandzBench.usage()
            }
        }
    }

    /// Batch `number`: 100 rows of one install and session, with event times from `startMs`.
    static func batch(_ number: Int, random: inout some RandomNumberGenerator, startMs: Int64 = 1_772_000_000_000) -> EventRows {
        var rows = EventRows(capacity: 100)
        let install = UUID().uuidString.lowercased()
        let session = UUID().uuidString.lowercased()
        for index in 0..<100 {
            let time = startMs + Int64(number * 1000 + index * 10)
            rows.append(eventID: (random.next(), random.next()), eventTimeMs: time, fields: [
                .eventName: "flow_saved_success", .installID: install, .sessionID: session, .userID: install, .userState: "free",
                .appVersion: "1.4.2", .buildNumber: "418", .platform: "iOS", .osVersion: "iOS 18.6", .deviceModel: "iPhone15,2",
                .locale: "en_US", .timezone: "America/New_York", .networkState: "online",
                .properties: "{\"flow_id\":\"\(UUID().uuidString.lowercased())\",\"nodes_count\":25,\"edges_count\":78,\"branches_count\":30,\"dangling_paths_count\":10,\"sequence_nodes_count\":6,\"duration_ms\":14,\"screen_name\":\"flow/builder\"}",
            ])
        }
        return rows
    }

    func run() async throws {
        if engine == "segments" { return try await runSegments() }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var configuration = StoreConfiguration()
        configuration.synchronous = synchronous
        let store = try SQLiteEventStore(path: path, configuration: configuration)
        if !dropIndexes.isEmpty { try store.dropIndexesForBenchmark(dropIndexes) }
        var random = SystemRandomNumberGenerator()
        let batchCount = rows / 100
        let batches = (0..<batchCount).map { Self.batch($0, random: &random) }
        let start = DispatchTime.now().uptimeNanoseconds
        let total = try await Self.appendAll(batches, concurrency: concurrency) { try await store.append($0).accepted }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print(String(format: "store: %d rows in %.2f s = %.0f rows/s (concurrency %d, synchronous %@, dropped: %@)",
                     total, seconds, Double(total) / seconds, concurrency, synchronous.rawValue, dropIndexes.joined(separator: ",")))
        store.closeNow()
    }
}

extension StoreBenchmark {
    /// The segment log's write path with its sealer beside it (issue 34).
    func runSegments() async throws {
        let root = path + ".segments-bench"
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let log = try SegmentLog(directory: root + "/segments")
        let index = try EventIDIndex(directory: root + "/ids")
        let writer = SegmentWriter(log: log, index: index)
        var random = SystemRandomNumberGenerator()
        let batchCount = rows / 100
        let batches = (0..<batchCount).map { Self.batch($0, random: &random) }
        let sealing = SealLoop(writer: writer, index: index, root: root, intervalMs: sealMs)
        let start = DispatchTime.now().uptimeNanoseconds
        let total = try await Self.appendAll(batches, concurrency: concurrency) { try await writer.append($0).accepted }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let written = writer.written
        sealing.stop()
        let sealStart = DispatchTime.now().uptimeNanoseconds
        let tail = try sealing.sealOnce()
        let sealSeconds = Double(DispatchTime.now().uptimeNanoseconds - sealStart) / 1e9
        writer.close()
        let bytes = SegmentStoreBackup.bytes(under: root)
        print(String(format: "segments: %d rows in %.2f s = %.0f rows/s durable (concurrency %d, %d groups, %.1f requests a group); sealed beside it every %d ms: %d rows, %d left for the last seal (%.2f s, %.0f rows/s); %.1f bytes/event under the store after it",
                     total, seconds, Double(total) / seconds, concurrency, written.groups, Double(written.frames) / Double(max(1, written.groups)),
                     sealMs, sealing.sealedRows, tail, sealSeconds, Double(tail) / sealSeconds, Double(bytes) / Double(max(1, total))))
    }

    /// Appends every batch from `concurrency` tasks, as the endpoint's requests do; returns the rows stored.
    static func appendAll(_ batches: [EventRows], concurrency: Int, _ append: @escaping @Sendable (IngestBatch) async throws -> Int) async throws -> Int {
        let next = Counter()
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var stored = 0
                    while let index = next.take(below: batches.count) {
                        stored += try await append(IngestBatch(receivedTimeMs: 1_772_000_000_000, keyID: "hzk_bench", catalogVersion: "1.0.0",
                                                               sentAtMs: nil, bodyBytes: 0, rows: batches[index], rejected: []))
                    }
                    return stored
                }
            }
            return try await group.reduce(0, +)
        }
    }
}

/// Seals closed segments into the column store on a thread of its own, every `intervalMs`.
final class SealLoop: @unchecked Sendable {
    let writer: SegmentWriter
    let index: EventIDIndex
    let root: String
    private let lock = NSCondition()
    private var stopping = false
    private var stopped = false
    private(set) var sealedRows = 0

    init(writer: SegmentWriter, index: EventIDIndex, root: String, intervalMs: Int) {
        (self.writer, self.index, self.root) = (writer, index, root)
        guard intervalMs > 0 else {
            stopped = true
            return
        }
        Thread {
            while self.lock.withLock({ !self.stopping }) {
                usleep(UInt32(intervalMs) * 1_000)
                self.sealedRows += (try? self.sealOnce()) ?? 0
            }
            self.lock.withLock {
                self.stopped = true
                self.lock.broadcast()
            }
        }.start()
    }

    func stop() {
        lock.withLock {
            stopping = true
            while !stopped { lock.wait() }
        }
    }

    /// Closes the open segment, seals every closed one, removes them; returns the rows sealed.
    func sealOnce() throws -> Int {
        let closed = try writer.withLog { log in
            try log.roll()
            return log.closedSegments
        }
        guard !closed.isEmpty else { return 0 }
        var sealer = SegmentSealer()
        sealer.maxPartsPerDay = 8
        let columns = try ColumnStoreWriter(directory: root + "/columns")
        let outcome = try sealer.seal(closed, directory: root + "/segments", into: columns, index: index,
                                      remove: { through in try self.writer.removeSealed(through: through) })
        try index.compact()
        return outcome.sealedRows
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func take(below limit: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard value < limit else { return nil }
        value += 1
        return value - 1
    }
}

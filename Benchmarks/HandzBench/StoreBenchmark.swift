import Foundation
import HandzStore

/// Appends synthetic batches (100 rows, one install each, random UUIDv4 event ids, ~500-byte
/// rows) to a fresh store from several concurrent tasks, the way the endpoint does, and reports
/// rows per second durably committed. Options: --rows N --concurrency C --db PATH --drop-index NAME…
struct StoreBenchmark {
    var rows = 1_000_000
    var concurrency = 32
    var path = "/tmp/handz-store-bench.sqlite"
    var dropIndexes: [String] = []
    var synchronous = StoreConfiguration.Synchronous.full

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
            default: HandzBench.usage()
            }
        }
    }

    static func batch(_ number: Int, random: inout SystemRandomNumberGenerator) -> EventRows {
        var rows = EventRows(capacity: 100)
        let install = UUID().uuidString.lowercased()
        let session = UUID().uuidString.lowercased()
        for index in 0..<100 {
            let time = Int64(1_772_000_000_000 + number * 1000 + index * 10)
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
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var configuration = StoreConfiguration()
        configuration.synchronous = synchronous
        let store = try SQLiteEventStore(path: path, configuration: configuration)
        if !dropIndexes.isEmpty { try store.dropIndexesForBenchmark(dropIndexes) }
        var random = SystemRandomNumberGenerator()
        let batchCount = rows / 100
        let batches = (0..<batchCount).map { Self.batch($0, random: &random) }
        let start = DispatchTime.now().uptimeNanoseconds
        let next = Counter()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var stored = 0
                    while let index = next.take(below: batchCount) {
                        let batch = IngestBatch(receivedTimeMs: 1_772_000_000_000, keyID: "hzk_bench", catalogVersion: "1.0.0",
                                                sentAtMs: nil, bodyBytes: 0, rows: batches[index], rejected: [])
                        stored += try await store.append(batch).accepted
                    }
                    return stored
                }
            }
            var total = 0
            for try await stored in group { total += stored }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            print(String(format: "store: %d rows in %.2f s = %.0f rows/s (concurrency %d, synchronous %@, dropped: %@)",
                         total, seconds, Double(total) / seconds, concurrency, synchronous.rawValue, dropIndexes.joined(separator: ",")))
        }
        store.closeNow()
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

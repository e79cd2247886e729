import Foundation
import HandzAnalyticsClient

/// The client's hot path and throughput:
/// - `track` latency (p50/p99/max) while the committer and uploader run;
/// - sustained events per second committed to the queue on disk (offline: nothing leaves);
/// - with `--endpoint` and `--keys`, sustained events per second delivered to a live server, and
///   the queue's size on disk sampled throughout (never above the cap plus one batch).
///
///   handz-bench client [--events N] [--endpoint URL --keys FILE]
struct ClientBenchmark {
    var events = 200_000
    var endpoint: URL?
    var keysPath: String?

    init(arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next() ?? ""
            switch argument {
            case "--events": events = Int(value) ?? events
            case "--endpoint": endpoint = URL(string: value)
            case "--keys": keysPath = value
            default: HandzBench.usage()
            }
        }
    }

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handz-client-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let queuePath = directory.appendingPathComponent("queue.sqlite").path
        var configuration = ClientConfiguration(endpoint: endpoint ?? URL(string: "http://127.0.0.1:9")!, keyID: "hzk_bench", secret: [1], queuePath: queuePath)
        if let keysPath, let key = try? ClientBenchmarkKeys.ingestKey(keysPath) {
            configuration.keyID = key.id
            configuration.secret = key.secret
        }
        let live = endpoint != nil
        if !live {
            configuration.flushInterval = 3_600
            configuration.flushThreshold = .max
            configuration.maxQueuedEvents = .max
            configuration.maxQueuedBytes = .max
        }
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
        var timings: [UInt64] = []
        timings.reserveCapacity(events)
        var maxQueueBytesOnDisk = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<events {
            let before = DispatchTime.now().uptimeNanoseconds
            client.track(BuilderNodeAdded(nodeType: .move, via: .picker, totalNodesAfter: index % 10_000 + 1))
            timings.append(DispatchTime.now().uptimeNanoseconds - before)
            if live && index % 2_000 == 0 {
                maxQueueBytesOnDisk = max(maxQueueBytesOnDisk, client.diagnostics().queuedBytes)
            }
        }
        let tracked = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if live {
            _ = client.drain(timeout: 300)
        } else {
            _ = client.diagnostics()  // commits whatever is still pending
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let diagnostics = client.diagnostics()
        client.shutdown()
        timings.sort()
        func percentile(_ p: Double) -> Double { Double(timings[min(timings.count - 1, Int(Double(timings.count) * p))]) / 1_000 }
        print(String(format: "client track latency: p50 %.2f µs, p99 %.2f µs, max %.1f µs over %d calls (%.0f calls/s from one thread)",
                     percentile(0.5), percentile(0.99), Double(timings.last!) / 1_000, events, Double(events) / tracked))
        if live {
            print(String(format: "client to a live server: %d events delivered in %.2f s = %.0f events/s; queue bytes sampled max %d (cap %d + one batch %d)",
                         diagnostics.delivered, seconds, Double(diagnostics.delivered) / seconds, maxQueueBytesOnDisk,
                         configuration.maxQueuedBytes, configuration.maxBatchBytes))
        } else {
            print(String(format: "client to disk: %d events committed in %.2f s = %.0f events/s (queue %d events, %.1f MB)",
                         diagnostics.queuedEvents, seconds, Double(diagnostics.queuedEvents) / seconds, diagnostics.queuedEvents,
                         Double(diagnostics.queuedBytes) / 1e6))
        }
    }
}

import HandzSigning
enum ClientBenchmarkKeys {
    static func ingestKey(_ path: String) throws -> IngestionKey? {
        try KeysFile.load(path: path).keys.first { $0.isActive && $0.scopes.contains(.ingest) }
    }
}

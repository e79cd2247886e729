import Foundation
import HandzAnalyticsClient

/// How often an idle client wakes the device: a client with an empty queue (after a flush of a
/// few events, so its threads have run) is left alone for `--seconds`; the figure is the sum of
/// voluntary context switches over the process's threads in that time, read from
/// `/proc/self/task/*/status` — every sleep that ends counts once, whatever woke it. The same
/// count for a process with no client is printed as the baseline.
///
///   handz-bench client-idle [--seconds 60]
struct ClientIdleBenchmark {
    var seconds = 60.0

    init(arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next() ?? ""
            switch argument {
            case "--seconds": seconds = Double(value) ?? seconds
            default: HandzBench.usage()
            }
        }
    }

    /// Voluntary context switches of every thread of this process so far.
    static func voluntarySwitches() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.reduce(0) { total, task in
            guard let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
                  let value = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") else { return total }
            return total + value
        }
    }

    func run() throws {
        let baselineStart = Self.voluntarySwitches()
        Thread.sleep(forTimeInterval: min(seconds, 5))
        let baseline = Double(Self.voluntarySwitches() - baselineStart) / min(seconds, 5) * 60

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handz-client-idle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ClientConfiguration(endpoint: URL(string: "http://127.0.0.1:9")!, keyID: "hzk_bench", secret: [1],
                                                queuePath: directory.appendingPathComponent("queue.sqlite").path)
        configuration.flushInterval = 30
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
        // Opt out and back in: the queue is empty and nothing is pending, as on an idle phone.
        client.setEnabled(false)
        client.setEnabled(true)
        Thread.sleep(forTimeInterval: 1)
        let start = Self.voluntarySwitches()
        Thread.sleep(forTimeInterval: seconds)
        let switches = Self.voluntarySwitches() - start
        client.shutdown()
        print(String(format: "idle client: %d wake-ups in %.0f s (%.1f per minute); a process without a client: %.1f per minute",
                     switches, seconds, Double(switches) / seconds * 60, baseline))
    }
}

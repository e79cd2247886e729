import Foundation
import HandzAnalyticsCore
import HandzColumnStore
import HandzStore

/// A day's retention on a large segment store while it ingests (issue 34: "no request waits more
/// than 100 ms for it").
///
/// Fills a segment store (`SegmentEventStore`, as `serve --engine segments` opens it) with
/// `--events` events whose receive times are spread evenly over `--days` past days (the
/// simulator's import stamps every event with the import's own time, so it cannot make such a
/// store), sealed as `serve` seals. Then two phases of `--seconds` each, appending batches of 100
/// events from 64 tasks on an open loop at `--rate` events/s with a seal every 500 ms beside them
/// (on a thread at nice 15, as `serve`'s), after 5 s of the same to warm up: the first without
/// retention, the second with the
/// retention run of the oldest day started one second in (`purge`, as `serve`'s retention runs it).
/// Each append's wait is measured from the moment it was due, so a stall is counted in full for
/// every append held behind it (no coordinated omission). This measures the store: HTTP, the
/// signature and validation, which retention does not touch, are left out.
///
/// `--reuse` keeps a store filled by an earlier run (its receive times in `PATH.retention-bench`),
/// and retains its next oldest day.
struct RetentionBenchmark {
    var events = 9_550_000
    var days = 30
    var rate = 50_000
    var seconds = 10
    var path = "/tmp/handz-retention-bench.sqlite"
    var reuse = false
    static let dayMs: Int64 = 86_400_000
    static let tasks = 64

    init(arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if argument == "--reuse" {
                reuse = true
                continue
            }
            let value = iterator.next() ?? ""
            switch argument {
            case "--events": events = Int(value) ?? events
            case "--days": days = Int(value) ?? days
            case "--rate": rate = Int(value) ?? rate
            case "--seconds": seconds = Int(value) ?? seconds
            case "--db": path = value
            default: HandzBench.usage()
            }
        }
    }

    /// What the fill left for the next runs: the first day's receive time, and the days retained since.
    struct Fill {
        var firstDayMs: Int64
        var daysRetained: Int
        var file: String

        func save() throws { try "\(firstDayMs) \(daysRetained)\n".write(toFile: file, atomically: true, encoding: .utf8) }

        static func load(_ file: String) -> Fill? {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
            let fields = text.split(whereSeparator: \.isWhitespace).compactMap { Int64($0) }
            return fields.count == 2 ? Fill(firstDayMs: fields[0], daysRetained: Int(fields[1]), file: file) : nil
        }
    }

    func run() async throws {
        var fill: Fill
        let store: SegmentEventStore
        if reuse, let kept = Fill.load(path + ".retention-bench") {
            fill = kept
            store = try SegmentEventStore(path: path)
        } else {
            for suffix in ["", "-wal", "-shm", ".segments", ".ids", ".columns", ".columns.lock", ".retention-bench"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            fill = Fill(firstDayMs: (now / Self.dayMs - Int64(days)) * Self.dayMs, daysRetained: 0, file: path + ".retention-bench")
            store = try SegmentEventStore(path: path)
            try await self.fill(store, firstDayMs: fill.firstDayMs)
            try fill.save()
        }
        let stored = try await store.stats(fromMs: 0, toMs: Int64.max).storedEvents
        print("store: \(stored) events, \(String(format: "%.1f", Double(SegmentStoreBackup.bytes(under: path + ".columns") + SegmentStoreBackup.bytes(under: path + ".ids")) / Double(max(1, stored)))) bytes/event in chunks and id runs")

        let sealing = Sealing(store: store)
        // The first seconds after opening are left out: the first seal opens the column writer
        // (reading the dictionaries) and the first lookups read the id runs' blocks from disk.
        _ = try await load(store, retaining: nil, seconds: 5)
        let quiet = try await load(store, retaining: nil)
        let cutoff = fill.firstDayMs + Int64(fill.daysRetained + 1) * Self.dayMs
        let busy = try await load(store, retaining: cutoff)
        sealing.stop()
        fill.daysRetained += 1
        try fill.save()
        await store.close()
        print(quiet.line(label: "without retention"))
        print(busy.line(label: "with a day's retention"))
    }

    /// Appends `events` events in batches of 100 with receive times over `days` days from
    /// `firstDayMs`, sealing each million as they come (the segments then never hold more than that).
    func fill(_ store: SegmentEventStore, firstDayMs: Int64) async throws {
        let batches = events / 100
        let started = DispatchTime.now().uptimeNanoseconds
        var sealNanoseconds: UInt64 = 0
        for roundStart in stride(from: 0, to: batches, by: 10_000) {
            let next = Counter()
            let roundEnd = min(batches, roundStart + 10_000)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<Self.tasks {
                    group.addTask { [days] in
                        var random = SystemRandomNumberGenerator()
                        while let offset = next.take(below: roundEnd - roundStart) {
                            let number = roundStart + offset
                            let day = Int64(number * days / batches)
                            let receivedMs = firstDayMs + day * Self.dayMs + Int64(number % 80_000) * 1_000
                            let rows = StoreBenchmark.batch(number, random: &random, startMs: receivedMs - 60_000)
                            _ = try await store.append(IngestBatch(receivedTimeMs: receivedMs, keyID: "hzk_bench", catalogVersion: "1.0.0",
                                                                   sentAtMs: nil, bodyBytes: 0, rows: rows, rejected: []))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let sealStart = DispatchTime.now().uptimeNanoseconds
            _ = try store.columns.withWriter(lockWait: .seconds(60)) { writer, _ in try store.seal(into: writer) }
            sealNanoseconds += DispatchTime.now().uptimeNanoseconds - sealStart
        }
        let total = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        print(String(format: "fill: %d events over %d days in %.1f s (seals %.1f s of it)", batches * 100, days, total, Double(sealNanoseconds) / 1e9))
    }

    /// The appends' waits over one phase, and the retention run's outcome if one ran.
    struct Phase {
        var waitsMs: [Double]
        var purge: (seconds: Double, events: Int)?

        func line(label: String) -> String {
            let sorted = waitsMs.sorted()
            func quantile(_ q: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))] }
            var text = String(format: "%@: %d appends, wait p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms",
                              label, sorted.count, quantile(0.5), quantile(0.99), quantile(0.999), sorted.last ?? 0)
            if let purge { text += String(format: "; retention removed %d events in %.2f s", purge.events, purge.seconds) }
            return text
        }
    }

    /// `seconds` of appends at `rate` (longer if the retention run is still going), with the
    /// retention of everything received before `retaining` started one second in.
    func load(_ store: SegmentEventStore, retaining cutoff: Int64?, seconds: Int? = nil) async throws -> Phase {
        let periodNs = UInt64(Double(Self.tasks * 100) / Double(rate) * 1e9)
        let start = DispatchTime.now().uptimeNanoseconds + 100_000_000
        let purging = Locked<Bool>(cutoff != nil)
        let retention: Task<(Double, Int), Error>? = cutoff.map { cutoff in
            Task.detached {
                try await Task.sleep(for: .seconds(1))
                let began = DispatchTime.now().uptimeNanoseconds
                defer { purging.withLock { $0 = false } }
                let result = try await store.purge(receivedBeforeMs: cutoff, nowMs: Int64(Date().timeIntervalSince1970 * 1000))
                return (Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9, result.events)
            }
        }
        let endNs = start + UInt64(seconds ?? self.seconds) * 1_000_000_000
        let waits = try await withThrowingTaskGroup(of: [Double].self) { group in
            for task in 0..<Self.tasks {
                group.addTask {
                    var random = SystemRandomNumberGenerator()
                    var waits: [Double] = []
                    var due = start + periodNs * UInt64(task) / UInt64(Self.tasks)
                    var number = task
                    while due < endNs || purging.withLock({ $0 }) {
                        let now = DispatchTime.now().uptimeNanoseconds
                        if due > now { try await Task.sleep(nanoseconds: due - now) }
                        let rows = StoreBenchmark.batch(number, random: &random, startMs: Int64(Date().timeIntervalSince1970 * 1000) - 60_000)
                        _ = try await store.append(IngestBatch(receivedTimeMs: Int64(Date().timeIntervalSince1970 * 1000), keyID: "hzk_bench",
                                                               catalogVersion: "1.0.0", sentAtMs: nil, bodyBytes: 0, rows: rows, rejected: []))
                        waits.append(Double(DispatchTime.now().uptimeNanoseconds - due) / 1e6)
                        due += periodNs
                        number += Self.tasks
                    }
                    return waits
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        var phase = Phase(waitsMs: waits)
        if let retention {
            let (seconds, events) = try await retention.value
            phase.purge = (seconds, events)
        }
        return phase
    }

    /// `serve`'s background seal: every 500 ms on a thread at nice 15, sharing the store's one column writer.
    final class Sealing: @unchecked Sendable {
        private let stopping = Locked(false)
        private let done = DispatchSemaphore(value: 0)

        init(store: SegmentEventStore) {
            Thread { [stopping, done] in
                #if os(Linux)
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 15)
                #endif
                while !stopping.withLock({ $0 }) {
                    usleep(500_000)
                    _ = try? store.columns.withWriter(lockWait: .seconds(1)) { writer, _ in try store.seal(into: writer) }
                }
                done.signal()
            }.start()
        }

        func stop() {
            stopping.withLock { $0 = true }
            done.wait()
        }
    }
}

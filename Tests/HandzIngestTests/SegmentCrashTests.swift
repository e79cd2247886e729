import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HandzAnalyticsCore
import HandzSigning
import HandzTestSupport
import Testing

/// The segment engine under a real `serve --engine segments` (issue 34, "Proof"): killed with
/// SIGKILL at random points under load from four writers, twenty times on one store, it loses no
/// acknowledged event and stores none twice. Every wait is bounded; every server is stopped.
@Suite(.serialized) struct SegmentCrashTests {
    /// No background seal: every restart must find the acknowledged ids in the segments it
    /// recovers (a seal would put them in id runs first and hide a recovery that forgot them).
    static let arguments = ["--engine", "segments", "--column-seal-interval", "0", "--install-events-per-second", "1000000", "--install-burst", "1000000"]

    /// Batch `index`: 50 events with ids of their own.
    static func batch(_ index: Int) -> [String] { ServerProcessTests.events(50, offset: index * 50) }

    @Test("kill -9 at 20 random points under four writers: every acknowledged event stored, none twice")
    func killNineTwentyTimes() async throws {
        let directory = try temporaryDirectory("handz-segment-crash")
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SeededGenerator(seed: 34)
        var acknowledged = Set<Int>()
        var attempted = 0
        for round in 0..<20 {
            let server = try ServerProcess(directory: directory, arguments: Self.arguments)
            let client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())
            // Each round sends 40 new batches and 8 acknowledged before (a queue re-sending).
            let fresh = Array(attempted..<(attempted + 40))
            attempted += 40
            let again = acknowledged.isEmpty ? [] : (0..<8).map { _ in acknowledged.randomElement(using: &random)! }
            let work = fresh + again
            let killAfter = Int.random(in: 1...30, using: &random)
            let acked = Locked<Set<Int>>([])
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for position in stride(from: writer, to: work.count, by: 4) {
                            guard let answer = try? await client.send(events: Self.batch(work[position])), answer.status == 200 else { continue }
                            acked.withLock { _ = $0.insert(work[position]) }
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<500 where acked.withLock({ $0.count }) < killAfter { try? await Task.sleep(for: .milliseconds(4)) }
                    server.stop(signal: SIGKILL)
                }
            }
            let thisRound = acked.withLock { $0 }
            #expect(!thisRound.isEmpty, "round \(round): nothing acknowledged before the kill")
            acknowledged.formUnion(thisRound)
        }

        // Every batch ever attempted, sent again: an acknowledged one is all duplicates (stored
        // before), and afterwards the store holds each attempted event exactly once.
        let server = try ServerProcess(directory: directory, arguments: Self.arguments)
        let client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())
        var lost = 0
        for index in 0..<attempted {
            let answer = try await client.send(events: Self.batch(index))
            #expect(answer.status == 200)
            if acknowledged.contains(index) { lost += 50 - (answer.json?["duplicates"] as? Int ?? 0) }
        }
        #expect(lost == 0, "acknowledged events not stored")
        #expect(server.stop(signal: SIGTERM) == 0)
        let stats = try CommandRunner.run(["stats", "--db", directory.appendingPathComponent("handz-events.sqlite").path])
        #expect(stats.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        #expect(json?["stored_events"] as? Int == attempted * 50, "each attempted event stored exactly once")
        #expect(acknowledged.count >= 20)
    }
}

/// A small deterministic generator (SplitMix64), so a failing round can be run again.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

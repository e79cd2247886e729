import Foundation
import HandzTestSupport
import Testing

/// The segment engine on a disk that fills under load (issue 34, "Proof"), a real one: the store's
/// directory is a 24 MiB tmpfs, so the segment writer meets `ENOSPC` itself (no quota stands in).
/// Batches get 503 with `Retry-After`, nothing acknowledged is lost, nothing refused is half
/// stored, and once space returns the same server accepts again without a restart. Needs
/// `mount` (root, as `.ci/run` runs); elsewhere the test is skipped and says why.
@Suite(.serialized) struct SegmentDiskFullTests {
    static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", arguments.joined(separator: " ") + " >/dev/null 2>&1"]
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Whether a tmpfs can be mounted here (root with the capability).
    static let canMount: Bool = {
        guard let directory = try? temporaryDirectory("handz-mount-probe") else { return false }
        defer { try? FileManager.default.removeItem(at: directory) }
        guard run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", directory.path]) == 0 else { return false }
        return run(["umount", directory.path]) == 0
    }()

    @Test("a full disk answers 503 with Retry-After, keeps every acknowledged event and nothing else, and accepts again once space returns",
          .enabled(if: canMount, "needs to mount a tmpfs (root)"))
    func diskFull() async throws {
        let directory = try temporaryDirectory("handz-segment-full")
        try #require(Self.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", directory.path]) == 0)
        defer {
            _ = Self.run(["umount", "-l", directory.path])
            try? FileManager.default.removeItem(at: directory)
        }
        let server = try ServerProcess(directory: directory, arguments: SegmentCrashTests.arguments)
        defer { server.stop(signal: SIGKILL) }
        let client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())
        // Ballast leaves about 4 MiB free: a few hundred batches of 100 events.
        let ballast = directory.appendingPathComponent("ballast")
        let free = try FileManager.default.attributesOfFileSystem(forPath: directory.path)[.systemFreeSize] as? Int ?? 0
        try Data(count: max(0, free - (4 << 20))).write(to: ballast)

        let (acknowledged, refused) = try await StoreFullTests.fill(client, batches: 2_000)
        try #require(refused.count == 3, "the disk never filled")
        #expect(acknowledged >= 1_000)
        let health = try await client.send(body: [], path: "/health", method: "GET", encoding: nil)
        #expect(health.status == 503 && health.body.contains("\"store_writable\":false"))

        // Space returns: the same server takes the refused batches, each event once.
        try FileManager.default.removeItem(at: ballast)
        for batch in refused {
            let answer = try await client.send(events: ServerProcessTests.events(100, offset: batch * 100))
            #expect(answer.status == 200 && answer.json?["accepted"] as? Int == 100, "\(answer.body)")
        }
        #expect(server.stop(signal: SIGTERM) == 0)
        let stats = try CommandRunner.run(["stats", "--db", directory.appendingPathComponent("handz-events.sqlite").path])
        let json = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        #expect(json?["stored_events"] as? Int == acknowledged + 300)
    }
}

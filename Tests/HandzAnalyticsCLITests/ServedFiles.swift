import Foundation
import HandzAnalyticsCore
import HandzTestSupport
import Testing

/// A real `serve` on a store of its own beside simulated files, and the simulated events sent to
/// it over HTTP: the start of the backup tests, which back a store up while batches arrive.
struct ServedFiles {
    let server: ServerProcess
    /// The served store.
    let live: String
    let lines: [String]
    let client: IngestHTTPClient
    /// Events acknowledged with a 200 so far.
    let acknowledged = Locked(0)
    /// Whether ``sendAll(batchEvents:)`` has ended.
    let finished = Locked(false)

    init(_ files: SimulatedFiles, arguments: [String] = []) throws {
        lines = try String(contentsOfFile: files.events, encoding: .utf8).split(separator: "\n").map(String.init)
        let directory = files.directory.appendingPathComponent("server")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        server = try ServerProcess(directory: directory, arguments: arguments + ["--install-events-per-second", "100000", "--install-burst", "100000"])
        live = directory.appendingPathComponent("handz-events.sqlite").path
        client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())
    }

    /// Sends every simulated event in batches of `batchEvents`, one after another, each expected
    /// to be answered 200 and counted in ``acknowledged``.
    func sendAll(batchEvents: Int) async throws {
        defer { finished.withLock { $0 = true } }
        for start in stride(from: 0, to: lines.count, by: batchEvents) {
            let batch = Array(lines[start..<min(start + batchEvents, lines.count)])
            let answer = try await client.send(events: batch)
            #expect(answer.status == 200, "\(answer.body)")
            acknowledged.withLock { $0 += batch.count }
        }
    }

    /// One backup of the served store taken while ``sendAll(batchEvents:)`` may still run, with
    /// the events acknowledged just before and just after it.
    struct Backup {
        var path: String
        var run: CommandRunner.Result
        var acknowledgedBefore: Int
        var acknowledgedAfter: Int
    }

    /// Up to `count` backups to `name-INDEX.EXTENSION` beside `files`, taken one after another
    /// while the load runs (stopping when it has ended), and how many began before it ended.
    func backupsWhileSending(_ files: SimulatedFiles, count: Int, extension: String) throws -> (backups: [Backup], underLoad: Int) {
        var backups: [Backup] = []
        var underLoad = 0
        for index in 0..<count where !finished.withLock({ $0 }) {
            let before = acknowledged.withLock { $0 }
            let path = files.directory.appendingPathComponent("under-load-\(index).\(`extension`)").path
            let run = try CommandRunner.run(["backup", "--db", live, "--out", path], timeout: 180)
            backups.append(Backup(path: path, run: run, acknowledgedBefore: before, acknowledgedAfter: acknowledged.withLock { $0 }))
            #expect(run.status == 0, "\(run.stderr)")
            if !finished.withLock({ $0 }) { underLoad += 1 }
        }
        return (backups, underLoad)
    }
}

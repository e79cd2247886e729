import Foundation
import HandzTestSupport
import Testing

/// A temporary directory holding a simulated NDJSON file (`simulate`, 80 installs × 14 days) and
/// the path of a store beside it: the start of the command-line tests that import and analyse.
struct SimulatedFiles {
    let directory: URL
    let events: String
    let db: String

    init(_ prefix: String) throws {
        directory = try temporaryDirectory(prefix)
        events = directory.appendingPathComponent("events.ndjson").path
        db = directory.appendingPathComponent("events.sqlite").path
        let simulated = try CommandRunner.run(["simulate", "--installs", "80", "--days", "14", "--seed", "11", "--out", events])
        #expect(simulated.status == 0, "\(simulated.stderr)")
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

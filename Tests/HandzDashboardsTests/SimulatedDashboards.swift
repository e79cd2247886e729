import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzCatalog
import HandzIngest
import HandzQuery
import HandzStore
import HandzSynthetic
import HandzTestSupport

/// One simulated dataset, imported through the ingestion path (`handz-analytics import`) into a real
/// store, shared by the dashboard tests; and the stored events in memory for reference counts.
final class SimulatedDashboards: @unchecked Sendable {
    static let shared: SimulatedDashboards = {
        let dashboards = try! SimulatedDashboards()
        removeAtExit(dashboards.directory)
        return dashboards
    }()

    static let fromMs: Int64 = 1_772_323_200_000  // 2026-03-01T00:00:00Z
    static let days: Int64 = 21
    static var toMs: Int64 { fromMs + days * EventQuery.dayMs }

    struct Event {
        var name: String
        var timeMs: Int64
        var install: String
        var session: String
        var properties: [String: Any]
    }

    let directory: URL
    let path: String
    let dashboards: [DashboardDefinition]
    /// Stored events (retries removed), in memory.
    let events: [Event]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("handz-dashboards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("store.sqlite").path
        var simulator = JourneySimulator(catalog: RepositoryCatalog.catalog, options: .init(installs: 400, days: Int(Self.days), seed: 11, startMs: Self.fromMs))
        var lines: [String] = []
        simulator.run { lines.append($0) }
        let file = directory.appendingPathComponent("events.ndjson")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        // The real `import` command in its own process: waiting on it blocks no thread of the
        // cooperative pool (a Task awaited with a semaphore here deadlocked two-core runs when
        // two suites reached `shared` at once).
        let imported = try CommandRunner.run(["import", "--db", path, "--engine", "sqlite", file.path], timeout: 300)
        guard imported.status == 0 else { throw ImportFailed(stderr: imported.stderr) }
        let loaded = DashboardLoader.load(directory: RepositoryCatalog.root.appendingPathComponent("dashboards").path)
        dashboards = loaded.dashboards
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var seen = Set<String>()
        var events: [Event] = []
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            guard seen.insert(object["event_id"] as! String).inserted else { continue }
            let time = Int64((formatter.date(from: object["event_time_utc"] as! String)!.timeIntervalSince1970 * 1000).rounded())
            events.append(Event(name: object["event_name"] as! String, timeMs: time, install: object["install_id"] as! String,
                                session: object["session_id"] as! String, properties: object["properties"] as? [String: Any] ?? [:]))
        }
        self.events = events
    }

    struct ImportFailed: Error { let stderr: String }

    func analysis() throws -> StoreAnalysis { try StoreAnalysis(path: path, catalog: RepositoryCatalog.catalog) }

    /// Events in [from, to) matching `match` (names and property filters, values as the catalog writes them).
    func matching(_ match: EventMatch, fromMs: Int64 = fromMs, toMs: Int64 = toMs) -> [Event] {
        events.filter { event in
            event.timeMs >= fromMs && event.timeMs < toMs && match.events.contains(event.name)
                && match.filters.allSatisfy { filter in event.text(filter.property).map(filter.values.contains) ?? false }
        }
    }
}

extension SimulatedDashboards.Event {
    /// A property as the catalog writes values (`user_state` from the envelope is not kept here).
    func text(_ name: String) -> String? {
        switch properties[name] {
        case let string as String: string
        case let number as NSNumber: number.stringValue  // integers (no dashboard groups or filters on a boolean)
        default: nil
        }
    }

    func integer(_ name: String) -> Int64? { (properties[name] as? NSNumber)?.int64Value }
    var day: Int64 { (timeMs - SimulatedDashboards.fromMs) / EventQuery.dayMs }
}



import Foundation
import HandzAnalyticsCore
import HandzQuery

/// Computes several dashboards' panels on the embedded store with a few read-only connections
/// in parallel (SQLite runs one query per connection; the panels are independent). The panels'
/// results are the same as ``StoreAnalysis/dashboard(_:fromMs:toMs:controls:)``'s, in order.
/// Each connection is a read-only ``StoreAnalysis``: never a write.
/// With an `engine` (the column store), each panel source it answers is answered there instead.
public enum DashboardRunner {
    /// `timed` hears each panel's query time (seconds), from the worker threads, serialised.
    public static func run(_ dashboards: [DashboardDefinition], path: String, catalog: Catalog, fromMs: Int64, toMs: Int64,
                           controls: PanelControls = PanelControls(), workers: Int = 2,
                           engine: (any PanelAnswering)? = nil, timed: @escaping @Sendable (DashboardDefinition, PanelDefinition, Double) -> Void = { _, _, _ in }) throws -> [DashboardData] {
        let jobs = dashboards.indices.flatMap { d in dashboards[d].panels.indices.map { (d, $0) } }
        let state = SharedState(count: jobs.count)
        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, jobs.count))) { _ in
            do {
                let store = try StoreAnalysis(path: path, catalog: catalog)
                while let index = state.next() {
                    let (d, p) = jobs[index]
                    let panel = dashboards[d].panels[p]
                    let started = ContinuousClock.now
                    let data = try store.panelData(panel, fromMs: fromMs, toMs: toMs, controls: controls, engine: engine)
                    let elapsed = ContinuousClock.now - started
                    state.finish(index, data) {
                        timed(dashboards[d], panel, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                    }
                }
            } catch {
                state.fail(error)
            }
        }
        if let error = state.error { throw error }
        var cursor = 0
        return dashboards.map { dashboard in
            defer { cursor += dashboard.panels.count }
            return DashboardData(dashboard: dashboard, fromMs: fromMs, toMs: toMs, panels: (cursor..<cursor + dashboard.panels.count).map { state.results[$0]! })
        }
    }

    /// The job counter, the results and the first error, behind one lock.
    final class SharedState: @unchecked Sendable {
        let lock = NSLock()
        var cursor = 0
        var results: [PanelData?]
        var error: Error?

        init(count: Int) { results = Array(repeating: nil, count: count) }

        func next() -> Int? {
            lock.lock()
            defer { lock.unlock() }
            guard error == nil, cursor < results.count else { return nil }
            cursor += 1
            return cursor - 1
        }

        func finish(_ index: Int, _ data: PanelData, _ report: () -> Void) {
            lock.lock()
            defer { lock.unlock() }
            results[index] = data
            report()
        }

        func fail(_ failure: Error) {
            lock.lock()
            defer { lock.unlock() }
            if error == nil { error = failure }
        }
    }
}

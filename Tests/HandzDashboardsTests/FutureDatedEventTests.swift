import Foundation
import HandzAnalysis
import HandzAnalyticsCore
@testable import HandzDashboards
import HandzQuery
import HandzSigning
import HandzSQLite
import HandzSynthetic
import HandzTestSupport
import Testing

/// Issue 32 §2: one phone with a wrong clock must not move every dashboard. A valid `app_open`
/// dated 2099-12-31 (accepted, as the endpoint accepts it) is stored and counted on its day, but
/// the range presets, `range=all` and `dashboard render`'s default range stay on the real data.
@Suite(.serialized) struct FutureDatedEventTests {
    let data = SimulatedDashboards.shared
    static let day: Int64 = 86_400_000
    /// 2099-12-31T12:00:00.000Z
    static let farFutureMs: Int64 = 4_102_401_600_000

    /// A copy of the simulated store with one valid `app_open` dated 2099 imported into it (the
    /// ingestion path: validated, received now).
    func storeWithFarFutureEvent(_ directory: URL) throws -> String {
        let copy = directory.appendingPathComponent("copy.sqlite").path
        try SQLiteDatabase(path: data.path, readOnly: true).execute("VACUUM INTO '\(copy)'")
        var random = SeededRandom(seed: 2099)
        var event = EventBuilder("app_open")
        event["event_time_utc"] = "2099-12-31T12:00:00.000Z"
        event["event_id"] = SyntheticUUID.v7(milliseconds: UInt64(Self.farFutureMs), &random)
        let line = directory.appendingPathComponent("future.ndjson")
        try Data((event.json + "\n").utf8).write(to: line)
        let imported = try CommandRunner.run(["import", "--db", copy, line.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("\"accepted\":1"), "the endpoint's validator accepts the event: \(imported.stdout)")
        return copy
    }

    @Test("one event dated 2099 leaves \"Last 30 days of data\", every preset and range=all on the real data, and is counted on its own day")
    func presetsIgnoreAWrongClock() throws {
        let directory = try temporaryDirectory("handz-future")
        defer { try? FileManager.default.removeItem(at: directory) }
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        let before = try #require(try data.analysis().eventTimeRange())
        let path = try storeWithFarFutureEvent(directory)
        let store = try StoreAnalysis(path: path, catalog: RepositoryCatalog.catalog)
        #expect(try store.eventTimeRange()! == before, "the anchor of the presets did not move")
        let dataEnd = before.last - before.last % Self.day + Self.day
        #expect(dataEnd < nowMs, "the real data ended before today")
        for preset in SiteControls.RangePreset.allCases where preset != .custom {
            var controls = SiteControls()
            controls.range = preset
            let range = controls.resolvedRange(stored: try store.eventTimeRange(), nowMs: nowMs)
            #expect(range.toMs == dataEnd, "\(preset.rawValue) ends with the data's last day")
            #expect(range == controls.resolvedRange(stored: before, nowMs: nowMs), "\(preset.rawValue)")
        }
        var all = SiteControls()
        all.range = .all
        #expect(all.resolvedRange(stored: try store.eventTimeRange(), nowMs: nowMs) == (before.first - before.first % Self.day, dataEnd))
        // Stored and counted on its device day by a range that includes it (CH33 §9 keeps device time).
        let f0 = try #require(RepositoryCatalog.catalog.funnels.first { $0.id == "F0" })
        let dayOf2099 = Self.farFutureMs - Self.farFutureMs % Self.day
        #expect(try store.funnel(FunnelQuery(funnel: f0, fromMs: dayOf2099, toMs: dayOf2099 + Self.day)).steps.first?.actors == 1)
        let log = try StoreAnalysis(path: path, catalog: RepositoryCatalog.catalog)
        #expect(try log.eventTimeRange()! == before, "the log reads the same anchor")
    }

    @Test("dashboard render's default range is the real data's days, not the year of a wrong clock")
    func renderDefaultRange() throws {
        let directory = try temporaryDirectory("handz-future-render")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try storeWithFarFutureEvent(directory)
        let rendered = try CommandRunner.run(["dashboard", "render", "--db", path, "--out", directory.appendingPathComponent("report").path], timeout: 300)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let before = try #require(try data.analysis().eventTimeRange())
        let days = (before.first - before.first % Self.day, before.last - before.last % Self.day + Self.day)
        #expect(rendered.stdout.contains("\"from\":\"\(Format.time(days.0))\",\"to\":\"\(Format.time(days.1))\""), "\(rendered.stdout)")
    }

    @Test("the tolerance for device clocks ahead of the server is the request signature's freshness window")
    func toleranceIsTheSignatureWindow() {
        #expect(StoreAnalysis.futureToleranceMs == RequestSignature.maxClockSkewSeconds * 1000)
    }
}

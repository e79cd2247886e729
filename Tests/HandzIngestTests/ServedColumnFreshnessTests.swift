import Foundation
import HandzSigning
import HandzSQLite
import HandzTestSupport
import Testing

/// Issue 33 §3 against the real server: the served pages read the column store, sealed on demand
/// before a page is drawn, so events the endpoint acknowledged a moment earlier are in the very
/// next page, and the page says which engine answered.
@Suite(.serialized) struct ServedColumnFreshnessTests {
    /// The first funnel table's step-1 actors (`<td class="actors">N</td>`), nil without a table.
    static func stepOneActors(_ html: String) -> Int? {
        guard let cell = html.range(of: "<td class=\"actors\">"), let end = html.range(of: "</td>", range: cell.upperBound..<html.endIndex) else { return nil }
        return Int(html[cell.upperBound..<end.lowerBound].replacingOccurrences(of: ",", with: ""))
    }

    @Test("events acknowledged just before a page are in it: the page seals the tail first and answers from the column store")
    func acknowledgedEventsAreInTheNextPage() async throws {
        let served = try ServedSimulatedStore("handz-served-columns", installs: 30, days: 5, seed: 5)
        defer { served.stop() }
        // A day after the simulated data: nothing there until the batch below.
        let page = "/dashboards/explore?steps=app_open,onboarding_viewed&range=custom&from=2026-03-20&to=2026-03-20"
        let get = { try served.get(page) }
        let before = try get()
        #expect(before.status == 200)
        #expect(Self.stepOneActors(before.body) ?? 0 == 0)
        #expect(before.body.contains("handz-events.sqlite, column store"), "the imported store is sealed: the column engine answers")

        var batch: [String] = []
        for install in 1...3 {
            var event = EventBuilder("app_open", seed: UInt64(install))
            event["event_time_utc"] = "2026-03-20T10:0\(install):00.000Z"
            event["install_id"] = String(format: "0199aaaa-0000-4000-8000-%012d", install)
            event["event_id"] = String(format: "0199aaaa-0020-7000-8000-%012d", install)
            batch.append(event.json)
        }
        let sent = try await IngestHTTPClient(baseURL: served.server.baseURL, key: served.ingest).send(events: batch)
        #expect(sent.status == 200 && sent.json?["accepted"] as? Int == 3, "\(sent.body)")

        let after = try get()
        #expect(after.status == 200)
        #expect(Self.stepOneActors(after.body) == 3, "the three installs acknowledged a moment ago")
        #expect(after.body.contains("handz-events.sqlite, column store"))
        // The page sealed through the log's last event (or the background seal had already).
        let log = try SQLiteDatabase(path: served.database, readOnly: true)
        let lastRowID = try #require(try log.scalar("SELECT MAX(rowid) FROM events"))
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: served.database + ".columns/manifest.json"))) as? [String: Any]
        #expect((manifest?["sealed_through_rowid"] as? Int).map(Int64.init) == lastRowID)
    }
}

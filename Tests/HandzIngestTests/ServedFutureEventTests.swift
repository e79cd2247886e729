import Foundation
import HandzSigning
import HandzTestSupport
import Testing

/// Issue 32 §2 as it was reproduced, against the real server: one valid `app_open` dated
/// 2099-12-31 sent with the app's key (accepted, 200) leaves "Last 30 days of data" and
/// `range=all` on the real data's days, and their pages cacheable.
@Suite(.serialized) struct ServedFutureEventTests {
    /// The page's own `<title>` (the first in the document; charts' titles come later).
    static func title(_ html: String) -> String? {
        guard let open = html.range(of: "<title>"), let close = html.range(of: "</title>", range: open.upperBound..<html.endIndex) else { return nil }
        return String(html[open.upperBound..<close.lowerBound])
    }

    @Test("a phone dated 2099 moves neither the default range nor range=all; both pages stay on the real days and are cached")
    func wrongClockMovesNoPage() async throws {
        let served = try ServedSimulatedStore("handz-served-future", installs: 40, days: 10, seed: 3)
        defer { served.stop() }
        let pages = ["/dashboards/d/launch_health", "/dashboards/d/launch_health?range=all"]
        let get = { (page: String) in try served.get(page) }
        let before = try pages.map { try #require(Self.title(try get($0).body)) }
        #expect(before.allSatisfy { $0.contains("2026-03-") && !$0.contains("2099") }, "\(before)")

        var event = EventBuilder("app_open")
        event["event_time_utc"] = "2099-12-31T12:00:00.000Z"
        event["event_id"] = "01999999-2099-7000-8000-000000000001"
        let sent = try await IngestHTTPClient(baseURL: served.server.baseURL, key: served.ingest).send(events: [event.json])
        #expect(sent.status == 200 && sent.json?["accepted"] as? Int == 1, "\(sent.body)")

        for (page, title) in zip(pages, before) {
            let first = try get(page)
            #expect(first.status == 200)
            #expect(Self.title(first.body) == title, "\(page) stays on the real data")
            // Its range has ended: drawn once for the new store version, then served from the cache.
            #expect(first.header("X-Handz-Cache") == "miss", "\(page)")
            #expect(try get(page).header("X-Handz-Cache") == "hit", "\(page)")
        }
    }
}

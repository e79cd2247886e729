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
        let directory = try temporaryDirectory("handz-served-future")
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = directory.appendingPathComponent("events.ndjson").path
        let simulated = try CommandRunner.run(["simulate", "--installs", "40", "--days", "10", "--seed", "3", "--out", events])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let imported = try CommandRunner.run(["import", "--db", directory.appendingPathComponent("handz-events.sqlite").path, events])
        #expect(imported.status == 0, "\(imported.stderr)")
        let ingest = IngestionKey.generate(scopes: [.ingest])
        let analyst = IngestionKey.generate(scopes: [.analyst])
        try KeysFile(keys: [ingest, analyst]).save(path: directory.appendingPathComponent("handz-keys.json").path)
        let server = try ServerProcess(directory: directory)
        defer { server.stop() }

        let signedIn = try DashboardSecurityTests.exchange(port: server.port, "POST", "/dashboards/login", body: "key_id=\(analyst.id)&secret=\(analyst.secretHex)")
        let session = try #require(signedIn.allHeaders.first?.split(separator: ";").first.map(String.init))
        let pages = ["/dashboards/d/launch_health", "/dashboards/d/launch_health?range=all"]
        let get = { (page: String) in try DashboardSecurityTests.exchange(port: server.port, "GET", page, headers: ["Cookie": session]) }
        let before = try pages.map { try #require(Self.title(try get($0).body)) }
        #expect(before.allSatisfy { $0.contains("2026-03-") && !$0.contains("2099") }, "\(before)")

        var event = EventBuilder("app_open")
        event["event_time_utc"] = "2099-12-31T12:00:00.000Z"
        event["event_id"] = "01999999-2099-7000-8000-000000000001"
        let sent = try await IngestHTTPClient(baseURL: server.baseURL, key: ingest).send(events: [event.json])
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

import Foundation
import HandzAnalyticsClient
import HandzSigning
import HandzTestSupport
import Testing

/// The client against a skewed device clock and against answers that are not the endpoint's
/// (issue 21 §3, §11). The real server on loopback, or a canned HTTP server; every wait bounded.
@Suite(.serialized) struct ClientClockAndReceiptTests {
    @Test("a phone whose clock is six minutes off still delivers: it measures the offset and signs again", arguments: [360.0, -360.0])
    func skewedClockDelivers(skew: TimeInterval) throws {
        let world = try ServerWorld()
        try world.start()
        let queue = world.directory.appendingPathComponent("queue.sqlite")
        let client = try AnalyticsClient(configuration: world.configuration(queue: queue), context: StaticDeviceContext(),
                                         clock: { Date().addingTimeInterval(skew) })
        for index in 0..<40 { client.track(ScreenViewed(screenName: "home/demo", entryPoint: index % 2 == 0 ? .home : nil)) }
        #expect(client.drain(timeout: 30))
        let diagnostics = client.diagnostics()
        client.shutdown()
        #expect(!diagnostics.sendingStopped)
        #expect(diagnostics.delivered == 40 && diagnostics.queuedEvents == 0 && diagnostics.isBalanced)
        #expect(try world.scalar("SELECT COUNT(*) FROM events") == 40)
        let statuses = world.batches().map(\.status)
        #expect(statuses.first == 401, "the first request, signed with the device clock, is refused for skew")
        #expect(statuses.filter { $0 == 401 }.count == 1, "one correction is enough")
        #expect(statuses.last == 200)
    }

    @Test("a 200 that is not a receipt for the batch keeps the events queued and is retried", arguments: [
        ("text/html", "<html><body>Sign in to the Wi-Fi</body></html>"),
        ("application/json", "{}"),
        ("application/json", "{\"accepted\":1,\"duplicates\":0,\"rejected\":[]}"),
    ])
    func foreignOKIsNotDelivery(contentType: String, body: String) throws {
        let portal = CannedHTTPServer(contentType: contentType, body: body)
        defer { portal.stop() }
        let directory = try temporaryDirectory("handz-client-portal")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = IngestionKey.generate(scopes: [.ingest])
        var configuration = ClientConfiguration(endpoint: URL(string: "http://127.0.0.1:\(portal.port)")!, keyID: key.id, secret: key.secret,
                                                queuePath: directory.appendingPathComponent("queue.sqlite").path)
        configuration.backoffBase = 0.1
        configuration.backoffCap = 0.5
        configuration.flushInterval = 0.5
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
        for _ in 0..<10 { client.track(AppOpen(startType: .cold, launchSource: .direct)) }
        client.flush()
        // Two batch answers (the client also fetches its settings from the same server), and the
        // first of them settled: the client only sends again after settling the previous answer.
        #expect(eventually(timeout: 60) { portal.batchRequestCount >= 2 })
        let diagnostics = client.diagnostics()
        client.shutdown()
        #expect(diagnostics.queuedEvents == 10 && diagnostics.delivered == 0 && diagnostics.isBalanced)
        #expect(diagnostics.lastError == "unexpected response (no receipt)")
        #expect(!diagnostics.sendingStopped)
    }
}

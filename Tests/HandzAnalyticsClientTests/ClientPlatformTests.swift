import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HandzAnalyticsClient
import HandzTestSupport
import Testing

/// The client as a phone lives (issue 17): the background flush holds background time and ends it
/// on every path, connectivity returning sends at once, and events take their network_state from
/// the platform. Driven by ``ManualPlatformSignals`` against the real server on loopback; every
/// wait is bounded.
@Suite(.serialized) struct ClientPlatformTests {
    static func screen() -> ScreenViewed { ScreenViewed(screenName: "home/demo") }

    func client(_ world: ServerWorld, _ signals: ManualPlatformSignals, endpoint: URL? = nil,
                adjust: (inout ClientConfiguration) -> Void = { _ in }) throws -> AnalyticsClient {
        var configuration = world.configuration(queue: world.directory.appendingPathComponent("queue.sqlite"))
        configuration.flushInterval = 3_600  // only the background flush sends
        configuration.flushThreshold = 100_000
        if let endpoint { configuration.endpoint = endpoint }
        adjust(&configuration)
        return try AnalyticsClient(configuration: configuration, context: StaticDeviceContext(), platform: signals)
    }

    @Test("going to the background delivers the queue with background time, and ends that time once delivered")
    func backgroundFlushDelivers() throws {
        let world = try ServerWorld()
        try world.start()
        let signals = ManualPlatformSignals()
        let client = try client(world, signals)
        for _ in 0..<20 { client.track(Self.screen()) }
        signals.enterBackground()
        #expect(eventually(timeout: 20) { signals.endedWork.count == 1 })
        #expect(signals.begunWork == 1 && signals.openWork.isEmpty && signals.endedWork == [1])
        #expect(try world.scalar("SELECT COUNT(*) FROM events") == 20)
        #expect(client.diagnostics().queuedEvents == 0)
        client.shutdown()
    }

    @Test("a background flush that fails (no server) ends its background time; the events stay queued")
    func backgroundFlushFails() throws {
        let world = try ServerWorld()  // never started: connections are refused
        let signals = ManualPlatformSignals()
        let client = try client(world, signals)
        for _ in 0..<5 { client.track(Self.screen()) }
        signals.enterBackground()
        #expect(eventually(timeout: 20) { signals.endedWork == [1] })
        #expect(signals.openWork.isEmpty)
        #expect(client.diagnostics().queuedEvents == 5)
        client.shutdown()
    }

    @Test("background time that expires mid-upload: the upload is cancelled, the time ended once, the events kept")
    func backgroundTimeExpires() throws {
        let world = try ServerWorld()
        let listener = SilentListener()  // accepts and never answers
        defer { listener.stop() }
        let signals = ManualPlatformSignals()
        let client = try client(world, signals, endpoint: URL(string: "http://127.0.0.1:\(listener.port)")!)
        for _ in 0..<5 { client.track(Self.screen()) }
        signals.enterBackground()
        #expect(eventually(timeout: 10) { listener.connectionCount > 0 })
        #expect(signals.openWork.count == 1)
        signals.expireBackgroundWork()
        #expect(signals.endedWork == [1] && signals.openWork.isEmpty)
        #expect(client.diagnostics().queuedEvents == 5)
        client.shutdown()
        #expect(signals.endedWork == [1], "ended again at shutdown")
    }

    @Test("back online: queued events go within a second instead of after the backoff that offline failures built up")
    func reconnectSendsAtOnce() throws {
        let world = try ServerWorld()  // started only once the client is waiting out a long backoff
        let signals = ManualPlatformSignals(networkState: .online)
        let client = try client(world, signals) { configuration in
            configuration.backoffBase = 30
            configuration.backoffCap = 600
        }
        for _ in 0..<5 { client.track(Self.screen()) }
        client.flush()
        // Fail until the next retry is at least 5 s away (full jitter can draw a short one; the
        // window doubles each round), bounded.
        var nextRetry: Date?
        for _ in 0..<6 {
            #expect(eventually(timeout: 20) { client.diagnostics().nextRetry != nil })
            nextRetry = client.diagnostics().nextRetry
            if let retry = nextRetry, retry.timeIntervalSinceNow >= 5 { break }
            _ = eventually(timeout: 15) { client.diagnostics().nextRetry != nextRetry }
        }
        let retry = try #require(nextRetry)
        try #require(retry.timeIntervalSinceNow >= 5, "no long backoff was drawn")
        signals.setNetwork(.offline)
        try world.start()
        let back = Date()
        signals.setNetwork(.online)
        #expect(eventually(timeout: 3) { (try? world.scalar("SELECT COUNT(*) FROM events")) == 5 })
        #expect(Date().timeIntervalSince(back) < 2.5 && Date() < retry, "delivered only after the backoff")
        client.shutdown()
    }

    @Test("events take network_state from the platform's connectivity")
    func networkStateFromPlatform() throws {
        let world = try ServerWorld()
        try world.start()
        let signals = ManualPlatformSignals(networkState: .online)
        let client = try client(world, signals)
        client.track(Self.screen())
        signals.setNetwork(.flaky)
        client.track(Self.screen())
        signals.setNetwork(.online)
        signals.enterBackground()
        #expect(eventually(timeout: 20) { signals.endedWork.count == 1 })
        client.shutdown()
        #expect(try world.scalar("SELECT COUNT(*) FROM events WHERE network_state = 'online'") == 1)
        #expect(try world.scalar("SELECT COUNT(*) FROM events WHERE network_state = 'flaky'") == 1)
    }

    /// A server started with `--client-config` holding `json`.
    func world(clientConfig json: String) throws -> ServerWorld {
        let world = try ServerWorld()
        let path = world.directory.appendingPathComponent("client-config.json")
        try Data(json.utf8).write(to: path)
        try world.start(["--client-config", path.path])
        return world
    }

    @Test("the server's settings apply within the client's bounds: a 10 ms flush interval becomes 1 s, batches shrink to 5, never grow past the local cap")
    func serverSettingsBounded() throws {
        let world = try world(clientConfig: #"{"flush_interval_seconds": 0.01, "max_batch_events": 5, "disabled_catalog_versions": []}"#)
        let signals = ManualPlatformSignals()
        let client = try client(world, signals)
        for _ in 0..<20 { client.track(Self.screen()) }
        client.flush()  // the first upload fetches the settings; the rest follows them
        #expect(eventually(timeout: 20) { (try? world.scalar("SELECT COUNT(*) FROM events")) == 20 })
        let diagnostics = client.diagnostics()
        #expect(diagnostics.flushInterval == 1 && diagnostics.maxBatchEvents == 5 && !diagnostics.disabledByServer)
        // The first batch may precede the settings' first fetch; after it, batches hold 5 events.
        #expect(world.batches().count >= 4)
        #expect(world.requests().contains { $0.path == "/v1/client-config" && $0.status == 200 })
        // Without another flush, a tracked event goes within about the 1 s interval.
        client.track(Self.screen())
        #expect(eventually(timeout: 10) { (try? world.scalar("SELECT COUNT(*) FROM events")) == 21 })
        client.shutdown()

        let larger = try self.world(clientConfig: #"{"max_batch_events": 100000}"#)
        let capped = try self.client(larger, ManualPlatformSignals()) { $0.maxBatchEvents = 50 }
        capped.track(Self.screen())
        capped.flush()
        #expect(eventually(timeout: 20) { capped.diagnostics().queuedEvents == 0 })
        #expect(capped.diagnostics().maxBatchEvents == 50)
        capped.shutdown()
    }

    @Test("the server can switch off an app's catalog version: nothing more is sent, the events stay queued, and the diagnostics say why")
    func killSwitch() throws {
        let world = try world(clientConfig: #"{"disabled_catalog_versions": ["\#(AnalyticsClient.catalogVersion)"]}"#)
        let client = try client(world, ManualPlatformSignals())
        for _ in 0..<5 { client.track(Self.screen()) }
        client.flush()
        #expect(eventually(timeout: 20) { client.diagnostics().disabledByServer })
        Thread.sleep(forTimeInterval: 0.5)
        client.flush()
        Thread.sleep(forTimeInterval: 0.5)
        let diagnostics = client.diagnostics()
        client.shutdown()
        #expect(diagnostics.lastError == "disabled_by_server" && diagnostics.queuedEvents == 5)
        #expect(world.batches().isEmpty)
    }
}

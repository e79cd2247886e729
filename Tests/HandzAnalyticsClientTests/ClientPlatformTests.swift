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

    /// A client of `world`'s server driven by `signals`; on the system's clock, or on `clock`.
    func client(_ world: ServerWorld, _ signals: ManualPlatformSignals, endpoint: URL? = nil, clock: ManualClientClock? = nil,
                adjust: (inout ClientConfiguration) -> Void = { _ in }) throws -> AnalyticsClient {
        var configuration = world.configuration(queue: world.directory.appendingPathComponent("queue.sqlite"))
        configuration.flushInterval = 3_600  // only the background flush sends
        configuration.flushThreshold = 100_000
        if let endpoint { configuration.endpoint = endpoint }
        adjust(&configuration)
        if let clock { return try AnalyticsClient(configuration: configuration, context: StaticDeviceContext(), time: clock, platform: signals) }
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

    @Test("back online: queued events go at once instead of after the backoff that offline failures built up")
    func reconnectSendsAtOnce() throws {
        let world = try ServerWorld()  // started only once the client is waiting out its backoff
        let signals = ManualPlatformSignals(networkState: .online)
        let clock = ManualClientClock()
        let client = try client(world, signals, clock: clock)
        defer { client.shutdown() }
        for _ in 0..<5 { client.track(Self.screen()) }
        client.flush()
        // Refused (no server yet): a retry is drawn for later on the client's clock, which the
        // test does not move — so anything sent from here on is sent before the backoff ends.
        let park = try #require(clock.settle(), "the uploader never went back to sleep")
        let retry = try #require(client.diagnostics().nextRetry)
        #expect(park.deadline == retry && retry > clock.now)
        signals.setNetwork(.offline)
        try world.start()
        signals.setNetwork(.online)
        // Delivered with the client's clock still where it was, before `retry`.
        #expect(try #require(clock.settle()).deadline == nil, "the queue was not emptied")
        #expect(try world.scalar("SELECT COUNT(*) FROM events") == 5)
        #expect(world.batches().map(\.status) == [200])
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

    @Test("the server can switch off an app's catalog version: nothing more is sent, the events stay queued, the settings are asked again only hourly, and the diagnostics say why")
    func killSwitch() throws {
        let world = try world(clientConfig: #"{"disabled_catalog_versions": ["\#(AnalyticsClient.catalogVersion)"]}"#)
        let clock = ManualClientClock()
        let client = try client(world, ManualPlatformSignals(), clock: clock)
        defer { client.shutdown() }
        for _ in 0..<5 { client.track(Self.screen()) }
        client.flush()
        // The upload starts with the settings; they switch this version off: no batch, and sleep
        // until the settings are due again (`settingsRefreshInterval`, an hour).
        let fetched = clock.now
        let refresh = fetched.addingTimeInterval(3_600)
        #expect(clock.settle()?.deadline == refresh)
        var diagnostics = client.diagnostics()
        #expect(diagnostics.disabledByServer && diagnostics.lastError == "disabled_by_server" && diagnostics.queuedEvents == 5)
        #expect(world.requests().map(\.path) == ["/v1/client-config"])
        // The app flushes again (and again in the background): the uploader wakes and sends nothing.
        client.flush()
        client.appDidEnterBackground()
        #expect(clock.settle()?.deadline == refresh)
        // A millisecond before the hour: still nothing.
        let early = try #require(clock.settle(at: refresh.addingTimeInterval(-0.001)))
        #expect(early.deadline.map { $0 >= refresh } == true)
        #expect(world.requests().map(\.path) == ["/v1/client-config"])
        // On the hour: the settings are asked once more, still no batch, and the next hour set.
        // (The server refuses that request as signed an hour ahead of its own clock — the test
        // moved only the client's — and the settings in force stay, as for any failed fetch.)
        #expect(clock.settle(at: refresh)?.deadline == refresh.addingTimeInterval(3_600))
        #expect(world.requests().map(\.path) == ["/v1/client-config", "/v1/client-config"])
        diagnostics = client.diagnostics()
        #expect(diagnostics.disabledByServer && diagnostics.lastError == "disabled_by_server" && diagnostics.queuedEvents == 5)
        #expect(world.batches().isEmpty)
    }
}

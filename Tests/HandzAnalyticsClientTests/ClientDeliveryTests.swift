import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HandzAnalyticsClient
import HandzCatalog
import HandzSigning
import HandzSQLite
import HandzTestSupport
import Testing

/// The client against the real ingestion server on loopback. Every wait is bounded.
@Suite(.serialized) struct ClientDeliveryTests {
    static func appOpen() -> AppOpen { AppOpen(startType: .cold, launchSource: .direct) }

    @Test("offline then online: everything queued arrives exactly once")
    func offlineThenOnline() throws {
        let world = try ServerWorld()
        let queue = world.directory.appendingPathComponent("queue.sqlite")
        let client = try AnalyticsClient(configuration: world.configuration(queue: queue), context: StaticDeviceContext())
        for index in 0..<150 {
            client.track(ScreenViewed(screenName: "home/demo", entryPoint: index % 2 == 0 ? .home : nil))
        }
        client.flush()
        #expect(eventually(timeout: 5) { client.diagnostics().queuedEvents == 150 })
        #expect(eventually(timeout: 5) { client.diagnostics().lastError == "network error" })
        try world.start()
        #expect(client.drain(timeout: 30))
        client.shutdown()
        #expect(try world.scalar("SELECT COUNT(*) FROM events") == 150)
        #expect(try world.scalar("SELECT COUNT(DISTINCT event_id) FROM events") == 150)
        let diagnostics = try AnalyticsClient.inspect(queuePath: queue.path)
        #expect(diagnostics.tracked == 150 && diagnostics.delivered == 150 && diagnostics.isBalanced)
    }

    /// A client on a ``ManualClientClock`` for `configuration`, with no platform signals.
    static func client(_ configuration: ClientConfiguration, clock: ManualClientClock) throws -> AnalyticsClient {
        try AnalyticsClient(configuration: configuration, context: StaticDeviceContext(), time: clock, platform: nil)
    }

    @Test("503 with Retry-After: the client retries exactly when Retry-After says — not a millisecond before — then delivers")
    func honoursRetryAfterOn503() async throws {
        let world = try ServerWorld()
        try world.start(clientConfig: ServerWorld.hourlyFlush)
        // A window far longer than the client takes to send (the client's time stands still; the
        // server's does not), ended by the test once the 503 is in.
        let window = 120
        #expect(try await world.admin("/v1/admin/maintenance?seconds=\(window)") == 200)
        var configuration = world.configuration(queue: world.directory.appendingPathComponent("queue.sqlite"))
        configuration.flushInterval = 3_600
        configuration.flushThreshold = 100_000
        let clock = ManualClientClock()
        let client = try Self.client(configuration, clock: clock)
        defer { client.shutdown() }
        for _ in 0..<10 { client.track(Self.appOpen()) }
        client.flush()
        let refused = try #require(clock.settle(), "the uploader never went back to sleep")
        #expect(world.batches().map(\.status) == [503])
        let retry = try #require(client.diagnostics().nextRetry)
        #expect(refused.deadline == retry)
        // Retry-After is the whole seconds left in the window (at least 1), and wins over the
        // client's own backoff (0.2 s base: at most 0.4 s on a first failure).
        let delay = retry.timeIntervalSince(clock.now)
        #expect(delay == delay.rounded() && delay >= 1 && delay <= Double(window), "\(delay)")
        let opened = try #require(world.requests().first { $0.path == "/v1/admin/maintenance" }?.timeMs)
        let met = try #require(world.batches().first?.timeMs)
        #expect(abs(delay - (Double(window) - Double(met - opened) / 1000)) <= 1, "\(delay) s against a window opened \(met - opened) ms earlier")
        #expect(try await world.admin("/v1/admin/maintenance?seconds=0") == 200)

        // A millisecond early the uploader wakes, looks, and sleeps again: no request.
        let early = try #require(clock.settle(at: retry.addingTimeInterval(-0.001)))
        #expect(early.deadline.map { $0 >= retry } == true)
        #expect(world.batches().count == 1)
        // At the retry time: one request, delivered; then nothing left, no timer.
        let done = try #require(clock.settle(at: retry))
        #expect(done.deadline == nil)
        #expect(world.batches().map(\.status) == [503, 200])
        #expect(try world.scalar("SELECT COUNT(*) FROM events") == 10)
        #expect(client.diagnostics().queuedEvents == 0)
    }

    @Test("429 with Retry-After from the per-install rate limit: each retry exactly at Retry-After, then delivery")
    func honoursRetryAfterOn429() throws {
        let world = try ServerWorld()
        try world.start(["--install-events-per-second", "20", "--install-burst", "20"], clientConfig: ServerWorld.hourlyFlush)
        var configuration = world.configuration(queue: world.directory.appendingPathComponent("queue.sqlite"))
        configuration.maxBatchEvents = 20
        configuration.flushInterval = 3_600
        configuration.flushThreshold = 100_000
        let clock = ManualClientClock()
        let client = try Self.client(configuration, clock: clock)
        defer { client.shutdown() }
        for _ in 0..<60 { client.track(Self.appOpen()) }
        client.flush()
        // 60 events in batches of 20 against a budget of 20 events, refilled at 20 a second:
        // each batch after the first meets an empty budget once.
        var park = try #require(clock.settle(), "the uploader never went back to sleep")
        for round in 1...2 {
            let batches = world.batches()
            try #require(batches.last?.status == 429, "round \(round): \(batches.map(\.status))")
            let retry = try #require(client.diagnostics().nextRetry)
            #expect(park.deadline == retry)
            // Retry-After: 1 (the whole seconds until 20 events' budget is back) wins over the
            // client's own backoff (at most 0.4 s on a first failure).
            #expect(retry.timeIntervalSince(clock.now) == 1)
            let early = try #require(clock.settle(at: retry.addingTimeInterval(-0.001)))
            #expect(early.deadline.map { $0 >= retry } == true)
            #expect(world.batches().count == batches.count, "a request before Retry-After")
            // The server's budget refills by the server's clock, which the test does not move:
            // its second passes before the client's is moved to the retry.
            let refusedAt = Date(timeIntervalSince1970: Double(batches.last!.timeMs) / 1000)
            Thread.sleep(until: refusedAt.addingTimeInterval(1.05))
            // At the retry time: the batch goes and is stored, and so does the next (refused in
            // round 1, its budget spent; the last in round 2).
            park = try #require(clock.settle(at: retry))
            #expect(world.batches().count == batches.count + (round == 1 ? 2 : 1))
        }
        #expect(park.deadline == nil)
        #expect(world.batches().map(\.status) == [200, 429, 200, 429, 200])
        #expect(try world.scalar("SELECT COUNT(*) FROM events") == 60)
    }

    @Test("the cap: 1,200 events tracked offline keep the newest 1,000 and count 200 as cap_events")
    func eventCap() throws {
        let world = try ServerWorld()
        let queue = world.directory.appendingPathComponent("queue.sqlite")
        var configuration = world.configuration(queue: queue)
        configuration.flushInterval = 3_600
        configuration.flushThreshold = 100_000
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
        for index in 0..<1_200 { client.track(BuilderNodeAdded(nodeType: .move, via: .picker, totalNodesAfter: index % 10_000 + 1)) }
        let diagnostics = client.diagnostics()
        client.shutdown()
        #expect(diagnostics.queuedEvents == 1_000)
        #expect(diagnostics.dropped(.capEvents) == 200)
        #expect(diagnostics.tracked == 1_200 && diagnostics.isBalanced)
    }

    @Test("the byte cap drops the oldest until the queue fits, and counts them as cap_bytes")
    func byteCap() throws {
        let world = try ServerWorld()
        let queue = world.directory.appendingPathComponent("queue.sqlite")
        var configuration = world.configuration(queue: queue)
        configuration.flushInterval = 3_600
        configuration.flushThreshold = 100_000
        configuration.maxQueuedBytes = 50_000
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
        for _ in 0..<300 { client.track(Self.appOpen()) }
        let diagnostics = client.diagnostics()
        client.shutdown()
        #expect(diagnostics.queuedBytes <= 50_000)
        #expect(diagnostics.dropped(.capBytes) > 0)
        #expect(diagnostics.queuedEvents + diagnostics.dropped(.capBytes) == 300)
        #expect(diagnostics.isBalanced)
    }

    @Test("opt-out during an upload: the upload is cancelled, the queue purged, and no request follows")
    func optOutStopsEverything() throws {
        let world = try ServerWorld()
        try world.start()
        let listener = SilentListener()
        defer { listener.stop() }
        let queue = world.directory.appendingPathComponent("queue.sqlite")
        var configuration = world.configuration(queue: queue)
        configuration.endpoint = URL(string: "http://127.0.0.1:\(listener.port)")!
        let clock = ManualClientClock()
        let client = try Self.client(configuration, clock: clock)
        for _ in 0..<40 { client.track(Self.appOpen()) }
        client.flush()
        #expect(eventually(timeout: 10) { listener.connectionCount == 1 })
        client.setEnabled(false)
        let optedOut = Date()
        for _ in 0..<40 { client.track(Self.appOpen()) }
        client.flush()
        client.appDidEnterBackground()
        // The uploader has seen all of it (the cancelled request, the flush, the background) and
        // sleeps with no timer: nothing can start a request now; a day later neither.
        #expect(try #require(clock.settle()).deadline == nil)
        #expect(try #require(clock.settle(at: clock.now.addingTimeInterval(86_400))).deadline == nil)
        let diagnostics = client.diagnostics()
        #expect(listener.connectionCount == 1)
        #expect(diagnostics.queuedEvents == 0 && !diagnostics.enabled)
        #expect(diagnostics.dropped(.purgedOptOut) == 40)
        #expect(diagnostics.tracked == 40 && diagnostics.isBalanced)

        // Back on: only what is tracked from now on is sent (no backfill, CH33-P8).
        client.setEnabled(true)
        for _ in 0..<5 { client.track(Self.appOpen()) }
        client.shutdown()
        let reopened = try AnalyticsClient(configuration: world.configuration(queue: queue), context: StaticDeviceContext())
        #expect(reopened.drain(timeout: 30))
        reopened.shutdown()
        #expect(try world.scalar("SELECT COUNT(*) FROM events") == 5)
        #expect(world.batches().allSatisfy { $0.timeMs > Int64(optedOut.timeIntervalSince1970 * 1000) })
    }

    @Test("logout and account deletion (CH33 §9): no request after it carries a user_id, including events queued before it",
          arguments: [false, true])
    func logoutStripsUserID(accountDeleted: Bool) async throws {
        let world = try ServerWorld()
        try world.start()
        let queue = world.directory.appendingPathComponent("queue.sqlite")
        let client = try AnalyticsClient(configuration: world.configuration(queue: queue), context: StaticDeviceContext())
        client.signIn(userID: "6C1F1E8E-4B7A-4D2B-9A51-3E0C1F2A9B70")
        for _ in 0..<10 { client.track(Self.appOpen()) }
        #expect(client.drain(timeout: 30))
        let signedInCount = try world.scalar("SELECT COUNT(*) FROM events WHERE user_id = '6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70'")
        #expect(signedInCount == 10)
        // Queued while signed in, sent after the sign-out.
        for _ in 0..<10 { client.track(Self.appOpen()) }
        if accountDeleted { client.accountDeleted() } else { client.signOut() }
        // Nothing queued keeps the id, and it is not kept for later events either.
        #expect(try SQLiteDatabase(path: queue.path).scalar("SELECT COUNT(*) FROM queue WHERE user_id IS NOT NULL") == 0)
        #expect(try SQLiteDatabase(path: queue.path).scalar("SELECT COUNT(*) FROM state WHERE key = 'user_id'") == 0)
        let signedOut = Int64(Date().timeIntervalSince1970 * 1000)
        for _ in 0..<10 { client.track(Self.appOpen()) }
        #expect(client.drain(timeout: 30))
        client.shutdown()
        #expect(try world.scalar("SELECT COUNT(*) FROM events") == 30)
        #expect(try world.scalar("SELECT COUNT(*) FROM events WHERE received_time_ms >= \(signedOut) AND user_id IS NOT NULL") == 0)
        #expect(try world.scalar("SELECT COUNT(*) FROM events WHERE user_id IS NOT NULL") == 10)
    }

    @Test("a server rejection of one event in a batch removes only that event, counted by code")
    func serverRejectsOne() throws {
        // The server runs a newer catalog in which open_screens_count may be at most 1.
        let world = try ServerWorld()
        let catalog = world.directory.appendingPathComponent("catalog")
        try FileManager.default.copyItem(atPath: RepositoryCatalog.directory, toPath: catalog.path)
        let properties = catalog.appendingPathComponent("properties.yaml")
        try (try String(contentsOf: properties, encoding: .utf8))
            .replacingOccurrences(of: "open_screens_count: {type: integer, minimum: 0, maximum: 1000,", with: "open_screens_count: {type: integer, minimum: 0, maximum: 1,")
            .write(to: properties, atomically: true, encoding: .utf8)
        try world.start(["--catalog", catalog.path])
        let queue = world.directory.appendingPathComponent("queue.sqlite")
        let client = try AnalyticsClient(configuration: world.configuration(queue: queue), context: StaticDeviceContext())
        for index in 0..<9 { client.track(Self.appOpen()); if index == 4 { client.track(AppBackground(foregroundDurationMs: 1_000, openScreensCount: 2)) } }
        #expect(client.drain(timeout: 30))
        let diagnostics = client.diagnostics()
        client.shutdown()
        #expect(try world.scalar("SELECT COUNT(*) FROM events") == 9)
        #expect(diagnostics.delivered == 9)
        #expect(diagnostics.dropped(.rejectedByServer(code: "out_of_range")) == 1)
        #expect(diagnostics.isBalanced)
    }

    @Test("kill -9 of a process using the client mid-flush, then restart: every committed event stored exactly once")
    func crashMidFlush() throws {
        let world = try ServerWorld()
        try world.start(["--install-events-per-second", "100000", "--install-burst", "100000"])
        let input = world.directory.appendingPathComponent("events.ndjson")
        var lines: [String] = []
        var builder = EventBuilder("app_open", seed: 4)
        for index in 0..<3_000 {
            builder["event_id"] = String(format: "0190a5e2-6c1d-7b3e-9f00-%012x", index)
            builder["event_time_utc"] = ISO8601DateFormatter().string(from: Date())
            lines.append(builder.json)
        }
        try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        let keyFile = world.directory.appendingPathComponent("client-key.json").path
        try KeysFile(keys: [world.ingest]).save(path: keyFile)
        let queue = world.directory.appendingPathComponent("queue.sqlite").path
        let send = try ChildProcess(executable: CommandRunner.product("handz-analytics").path,
                                    arguments: ["send", "--queue", queue, "--endpoint", world.endpoint.absoluteString, "--key-file", keyFile,
                                                "--batch-events", "20", input.path])
        #expect(eventually(timeout: 30) { world.batches().count >= 5 })
        send.send(SIGKILL)
        send.waitUntilExit()
        // Restart the client on the same queue with nothing new: it delivers what was committed.
        let resume = try CommandRunner.run(["send", "--queue", queue, "--endpoint", world.endpoint.absoluteString, "--key-file", keyFile], stdin: Data())
        #expect(resume.status == 0, "\(resume.stdout)")
        let diagnostics = try AnalyticsClient.inspect(queuePath: queue)
        #expect(diagnostics.queuedEvents == 0 && diagnostics.isBalanced)
        let stored = try world.scalar("SELECT COUNT(*) FROM events")
        #expect(stored == (try world.scalar("SELECT COUNT(DISTINCT event_id) FROM events")))
        // Everything the queue committed reached the server (duplicates acknowledged, not stored twice).
        #expect(stored == Int64(diagnostics.tracked - diagnostics.dropped))
    }

    @Test("with the endpoint failing, the client backs off: exactly one request per window, each drawn within its bound")
    func unreachableEndpoint() throws {
        let listener = SilentListener(closeImmediately: true)
        defer { listener.stop() }
        let directory = try temporaryDirectory("handz-unreachable")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ClientConfiguration(endpoint: URL(string: "http://127.0.0.1:\(listener.port)")!, keyID: "hzk_test", secret: [1, 2, 3],
                                                queuePath: directory.appendingPathComponent("queue.sqlite").path)
        configuration.backoffBase = 0.2
        configuration.flushInterval = 3_600  // only the retries wake the uploader
        let clock = ManualClientClock()
        let client = try Self.client(configuration, clock: clock)
        defer { client.shutdown() }
        for _ in 0..<50 { client.track(Self.appOpen()) }
        client.flush()
        var park = try #require(clock.settle(), "the uploader never went back to sleep")
        // The first attempt fetches the settings too (refused as well, not again for an hour).
        var connections = 2
        for attempt in 1...6 {
            #expect(listener.connectionCount == connections, "attempt \(attempt)")
            let diagnostics = client.diagnostics()
            #expect(diagnostics.lastError == "network error")
            let retry = try #require(diagnostics.nextRetry)
            #expect(park.deadline == retry)
            // Full jitter with a 0.1 s floor: within [0.1, 0.2 · 2^attempt] (``Backoff``).
            let delay = retry.timeIntervalSince(clock.now)
            #expect(delay >= 0.1 && delay <= 0.2 * pow(2, Double(attempt)), "attempt \(attempt): \(delay) s")
            // A millisecond early: the uploader looks and sleeps again, no request.
            let early = try #require(clock.settle(at: retry.addingTimeInterval(-0.001)))
            #expect(early.deadline.map { $0 >= retry } == true)
            #expect(listener.connectionCount == connections, "attempt \(attempt) came early")
            // At the retry time: exactly one request, refused, and the next window drawn.
            park = try #require(clock.settle(at: retry))
            connections += 1
        }
        #expect(listener.connectionCount == connections)
        let diagnostics = client.diagnostics()
        #expect(diagnostics.queuedEvents == 50 && diagnostics.isBalanced)
    }
}


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

    @Test("503 with Retry-After: the client waits that long, then delivers")
    func honoursRetryAfterOn503() async throws {
        let world = try ServerWorld()
        try world.start()
        // The window opens before anything is queued and is held open — renewed to 5–7 s every
        // 400 ms — until the access log shows the first 503; only then is it left to close. So
        // the first request meets it whenever it comes: CI failed with fixed 2, 3, 4 and 6 s
        // windows opened after queueing (on a loaded machine the batch either left before the
        // window opened or trailed it). The renewals rotate through three lengths so no two
        // identical admin requests fall in one second (an identical signed admin request is a
        // replay and refused). The first window is 30 s, covering the client's creation: a
        // clean-clone CI run (2026-11-26) took 6.9 s from opening a 6 s window to the client's
        // first batch, which then met a closed window; the renewals shorten it to 5–7 s.
        #expect(try await world.admin("/v1/admin/maintenance?seconds=30") == 200)
        let queue = world.directory.appendingPathComponent("queue.sqlite")
        var configuration = world.configuration(queue: queue)
        configuration.flushInterval = 3_600
        configuration.flushThreshold = 100_000
        // A request stuck on a loaded machine is given up after 10 s (not 30) and retried inside
        // the window's hold: a clean-clone CI run saw the client send nothing for the
        // whole minute, then one 200 after the window closed.
        configuration.requestTimeout = 10
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
        for _ in 0..<10 { client.track(Self.appOpen()) }
        client.flush()
        // Held up to 120 s: under the full suite's load on two cores a run (2026-11-25, local)
        // still saw no request reach the server within 60 s.
        let deadline = Date().addingTimeInterval(120)
        var renewal = 0
        while !world.batches().contains(where: { $0.status == 503 }), Date() < deadline {
            try await Task.sleep(nanoseconds: 400_000_000)
            renewal += 1
            _ = try await world.admin("/v1/admin/maintenance?seconds=\(5 + renewal % 3)")
            client.flush()
        }
        #expect(client.drain(timeout: 60))
        let lastError = client.diagnostics().lastError
        client.shutdown()
        #expect(try world.scalar("SELECT COUNT(*) FROM events") == 10)
        let batches = world.batches()
        let refused = batches.filter { $0.status == 503 }
        #expect(!refused.isEmpty, """
            no request met the window: \(batches.map(\.status)); every request (ms, path, status): \
            \(world.requests().map { "\($0.timeMs) \($0.path) \($0.status)" }); client's last error: \(lastError ?? "none")
            """)
        // Retry-After is the whole seconds left in the window, rounded up (at least 1): a client
        // that waits that long retries once the window has closed — or, when a renewal sent just
        // before the test saw the 503 extended it, once or twice more. One that waited less (a 1 s
        // cap, or its own 0.2 s backoff) would be refused five times or more in a 5–7 s window.
        for (index, batch) in batches.enumerated() where batch.status == 503 && index + 1 < batches.count {
            #expect(batches[index + 1].timeMs - batch.timeMs >= 950)
        }
        #expect(refused.count <= 3, "statuses: \(batches.map(\.status))")
        #expect(batches.last?.status == 200)
    }

    @Test("429 with Retry-After from the per-install rate limit: backoff honoured, then delivery")
    func honoursRetryAfterOn429() throws {
        let world = try ServerWorld()
        try world.start(["--install-events-per-second", "20", "--install-burst", "20"])
        let queue = world.directory.appendingPathComponent("queue.sqlite")
        var configuration = world.configuration(queue: queue)
        configuration.maxBatchEvents = 20
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
        for _ in 0..<60 { client.track(Self.appOpen()) }
        client.flush()
        #expect(client.drain(timeout: 30))
        client.shutdown()
        let batches = world.batches()
        #expect(batches.contains { $0.status == 429 })
        // After every 429 the next request waited at least the Retry-After second.
        for (index, batch) in batches.enumerated() where batch.status == 429 && index + 1 < batches.count {
            #expect(batches[index + 1].timeMs - batch.timeMs >= 950)
        }
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
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
        for _ in 0..<40 { client.track(Self.appOpen()) }
        client.flush()
        #expect(eventually(timeout: 10) { listener.connectionCount == 1 })
        client.setEnabled(false)
        let optedOut = Date()
        for _ in 0..<40 { client.track(Self.appOpen()) }
        client.flush()
        client.appDidEnterBackground()
        Thread.sleep(forTimeInterval: 1.5)
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
        let send = Process()
        send.executableURL = CommandRunner.product("handz-analytics")
        send.arguments = ["send", "--queue", queue, "--endpoint", world.endpoint.absoluteString, "--key-file", keyFile, "--batch-events", "20", input.path]
        send.standardOutput = FileHandle.nullDevice
        try send.run()
        #expect(eventually(timeout: 30) { world.batches().count >= 5 })
        kill(send.processIdentifier, SIGKILL)
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

    @Test("with the endpoint failing, the client backs off: one request per growing window, not a loop")
    func unreachableEndpoint() throws {
        let listener = SilentListener(closeImmediately: true)
        defer { listener.stop() }
        let directory = try temporaryDirectory("handz-unreachable")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ClientConfiguration(endpoint: URL(string: "http://127.0.0.1:\(listener.port)")!, keyID: "hzk_test", secret: [1, 2, 3],
                                                queuePath: directory.appendingPathComponent("queue.sqlite").path)
        configuration.backoffBase = 0.2
        configuration.flushInterval = 0.1
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
        for _ in 0..<50 { client.track(Self.appOpen()) }
        client.flush()
        Thread.sleep(forTimeInterval: 4)
        let diagnostics = client.diagnostics()
        client.shutdown()
        // Windows of 0.4, 0.8, 1.6, 3.2 s (full jitter, 0.1 s floor): a handful of attempts in 4 s.
        #expect(listener.connectionCount >= 2 && listener.connectionCount <= 12, "\(listener.connectionCount)")
        #expect(diagnostics.lastError == "network error")
        #expect(diagnostics.nextRetry != nil)
        #expect(diagnostics.queuedEvents == 50 && diagnostics.isBalanced)
    }
}


import Foundation
import HandzAnalyticsClient
import HandzCatalog
import HandzTestSupport
import Testing
@testable import HandzAnalyticsClient

/// Client behaviour that needs no server.
@Suite struct ClientUnitTests {
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var now = Date(timeIntervalSince1970: 1_772_366_400)
        func advance(_ seconds: TimeInterval) { lock.withLock { now += seconds } }
        var date: Date { lock.withLock { now } }
    }

    func offlineClient(_ directory: URL, clock: Clock? = nil) throws -> AnalyticsClient {
        var configuration = ClientConfiguration(endpoint: URL(string: "http://127.0.0.1:9")!, keyID: "hzk_test", secret: [1],
                                                queuePath: directory.appendingPathComponent("queue.sqlite").path)
        configuration.flushInterval = 3_600
        configuration.flushThreshold = 100_000
        if let clock { return try AnalyticsClient(configuration: configuration, context: StaticDeviceContext(), clock: { clock.date }) }
        return try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
    }

    @Test("sign-in takes the account's UUID only: an email is refused and never stored on the device")
    func signInRefusesValues() throws {
        let directory = try temporaryDirectory("handz-client-unit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try offlineClient(directory)
        #expect(!client.signIn(userID: "someone@example.com"))
        #expect(client.signIn(userID: "6C1F1E8E-4B7A-4D2B-9A51-3E0C1F2A9B70"))
        client.shutdown()
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {  // the queue, its WAL and journal
            let bytes = try Data(contentsOf: directory.appendingPathComponent(file))
            #expect(bytes.range(of: Data("someone@example.com".utf8)) == nil, "\(file)")
        }
    }

    @Test("event ids follow emission order on one device, also within one millisecond (a frozen clock)")
    func eventIDsInEmissionOrder() throws {
        let directory = try temporaryDirectory("handz-client-unit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try offlineClient(directory, clock: Clock())
        for _ in 0..<900 { client.track(ScreenViewed(screenName: "home/demo")) }  // under the 1,000-event cap
        client.shutdown()
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("queue.sqlite").path)
        let bodies: [String] = try database.prepare("SELECT body FROM queue ORDER BY seq").query { String(decoding: $0.blob(0), as: UTF8.self) }
        let ids = bodies.compactMap { body in body.range(of: "\"event_id\":\"").map { String(body[$0.upperBound...].prefix(36)) } }
        #expect(ids.count == 900)
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
    }

    /// The names of the queued events, oldest first.
    func queuedNames(_ directory: URL) throws -> [String] {
        try SQLiteDatabase(path: directory.appendingPathComponent("queue.sqlite").path)
            .prepare("SELECT name FROM queue ORDER BY seq").query { $0.text(0) ?? "" }
    }

    @Test("crash reports follow their own consent (CH33 §2.2): off removes queued ones and records no new ones; other events go on")
    func crashConsent() throws {
        let directory = try temporaryDirectory("handz-client-unit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let crash = CrashReported(lastScreenName: "home/demo", hadUnsavedChanges: false)
        var client = try offlineClient(directory)
        #expect(client.isCrashReportingEnabled)
        client.track(crash)
        client.track(ScreenViewed(screenName: "home/demo"))
        #expect(client.diagnostics().queuedEvents == 2)
        client.track(crash)  // pending, not yet committed, when the toggle goes off
        client.setCrashReportsEnabled(false)
        client.track(crash)
        client.track(ScreenViewed(screenName: "home/demo"))
        var diagnostics = client.diagnostics()
        client.shutdown()
        #expect(try queuedNames(directory) == ["screen_viewed", "screen_viewed"])
        #expect(diagnostics.dropped(.purgedCrashOptOut) == 2 && diagnostics.isBalanced)
        // The choice persists; turning crash reports on again records new ones.
        client = try offlineClient(directory)
        #expect(!client.isCrashReportingEnabled)
        client.track(crash)
        client.setCrashReportsEnabled(true)
        client.track(crash)
        diagnostics = client.diagnostics()
        client.shutdown()
        #expect(try queuedNames(directory) == ["screen_viewed", "screen_viewed", "crash_reported"])
        #expect(diagnostics.isBalanced)
    }

    @Test("analytics off records nothing, crash reports included, whatever the crash toggle says")
    func analyticsOffSilencesCrashReports() throws {
        let directory = try temporaryDirectory("handz-client-unit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try offlineClient(directory)
        client.setEnabled(false)
        client.track(CrashReported(lastScreenName: "home/demo", hadUnsavedChanges: true))
        #expect(client.diagnostics().queuedEvents == 0)
        client.shutdown()
        #expect(try queuedNames(directory).isEmpty)
    }

    @Test("an idle client does not wake: no timer runs while nothing is pending or queued; tracking wakes it and the queue is written")
    func idleClientSleeps() throws {
        let directory = try temporaryDirectory("handz-client-unit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try offlineClient(directory)
        Thread.sleep(forTimeInterval: 0.3)
        let before = client.wakeUps
        Thread.sleep(forTimeInterval: 2)
        // The old loops woke 20 times a second (committer) and once a second (uploader): ~42 here.
        #expect(client.wakeUps - before <= 1, "woke \(client.wakeUps - before) times while idle")
        client.track(ScreenViewed(screenName: "home/demo"))
        #expect(eventually(timeout: 5) { (try? queuedNames(directory).count) == 1 })
        client.shutdown()
    }

    @Test("opted out with a retry pending, the client does not spin: no timer while it may not send")
    func optedOutDoesNotSpin() throws {
        let directory = try temporaryDirectory("handz-client-unit")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ClientConfiguration(endpoint: URL(string: "http://127.0.0.1:9")!, keyID: "hzk_test", secret: [1],
                                                queuePath: directory.appendingPathComponent("queue.sqlite").path)
        configuration.backoffBase = 0.05
        configuration.backoffCap = 0.2
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext(), platform: nil)
        client.track(ScreenViewed(screenName: "home/demo"))
        client.flush()
        #expect(eventually(timeout: 10) { client.diagnostics().lastError == "network error" })
        client.setEnabled(false)
        Thread.sleep(forTimeInterval: 0.5)
        let before = client.wakeUps
        Thread.sleep(forTimeInterval: 2)
        // A retry timer left running while sending is not allowed woke every 10 ms: ~200 here.
        #expect(client.wakeUps - before <= 2, "woke \(client.wakeUps - before) times while opted out")
        client.shutdown()
    }

    @Test("the committed generated code is up to date with catalog/")
    func generatedCodeIsCurrent() throws {
        let folder = RepositoryCatalog.root.appendingPathComponent("Sources/HandzAnalyticsClient/Generated")
        for file in SwiftEventsGenerator(catalog: RepositoryCatalog.catalog).files() {
            let committed = try String(contentsOf: folder.appendingPathComponent(file.name), encoding: .utf8)
            #expect(committed == file.contents, "regenerate: swift run handz-analytics codegen swift --out Sources/HandzAnalyticsClient/Generated")
        }
    }

    @Test("the example app's events, generated into the app (codegen swift --for-app), are up to date with catalog/")
    func appGeneratedCodeIsCurrent() throws {
        let folder = RepositoryCatalog.root.appendingPathComponent("examples/ConsumerApp/Sources/ConsumerApp/Analytics")
        for file in SwiftEventsGenerator(catalog: RepositoryCatalog.catalog, target: .app).files() {
            let committed = try String(contentsOf: folder.appendingPathComponent(file.name), encoding: .utf8)
            #expect(committed == file.contents, "regenerate: swift run handz-analytics codegen swift --for-app --out examples/ConsumerApp/Sources/ConsumerApp/Analytics")
            #expect(file.contents.contains(file.name == "CatalogEvents.swift" ? "import HandzAnalyticsClient" : "public enum AppAnalyticsCatalog"))
        }
    }

    @Test("one generated type per enabled event, none for placeholders")
    func generatedTypes() {
        let enabled = Set(RepositoryCatalog.catalog.events.filter(\.isEnabled).map(\.name))
        #expect(Set(catalogEventTypes.keys) == enabled)
        #expect(catalogEventTypes["gate_shown"] == nil)
        #expect(AppOpen.eventName == "app_open")
    }

    @Test("events the device validator refuses are counted invalid and never queued")
    func invalidEventsAreCounted() throws {
        let directory = try temporaryDirectory("handz-client-unit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try offlineClient(directory)
        client.track(BuilderEdgeCreated(edgeType: .branch, fromNodeType: .move, toNodeType: .move, branchIndex: 3, totalOutgoingFromSourceAfter: 4))
        client.track(BuilderEdgeCreated(edgeType: .branch, fromNodeType: .move, toNodeType: .move, branchIndex: 12, totalOutgoingFromSourceAfter: 11))
        let diagnostics = client.diagnostics()
        client.shutdown()
        #expect(diagnostics.queuedEvents == 1)
        #expect(diagnostics.dropped(.invalid) == 1)
        #expect(diagnostics.tracked == 2 && diagnostics.isBalanced)
        #expect(diagnostics.recentEvents.map(\.name) == ["builder_edge_created", "builder_edge_created"])
    }

    @Test("install_id persists across restarts; a new session starts after the background timeout only")
    func identity() throws {
        let directory = try temporaryDirectory("handz-client-unit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = Clock()
        let client = try offlineClient(directory, clock: clock)
        let install = client.currentInstallID
        let session = client.currentSessionID
        client.appDidEnterBackground()
        clock.advance(10 * 60)
        client.appWillEnterForeground()
        #expect(client.currentSessionID == session)
        client.appDidEnterBackground()
        clock.advance(31 * 60)
        client.appWillEnterForeground()
        #expect(client.currentSessionID != session)
        client.shutdown()
        let again = try offlineClient(directory, clock: clock)
        #expect(again.currentInstallID == install)
        again.shutdown()
    }

    @Test("events older than the maximum age expire and are counted")
    func expiry() throws {
        let directory = try temporaryDirectory("handz-client-unit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = Clock()
        var configuration = ClientConfiguration(endpoint: URL(string: "http://127.0.0.1:9")!, keyID: "hzk_test", secret: [1],
                                                queuePath: directory.appendingPathComponent("queue.sqlite").path)
        configuration.flushInterval = 0.1
        configuration.backoffBase = 0.05
        configuration.maxEventAge = 3_600
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext(), clock: { clock.date })
        for _ in 0..<5 { client.track(AppOpen(startType: .warm, launchSource: .push)) }
        _ = client.diagnostics()
        clock.advance(7_200)
        client.flush()
        let expired = { client.diagnostics().dropped(.expired) == 5 }
        let deadline = Date().addingTimeInterval(10)
        while !expired() && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let diagnostics = client.diagnostics()
        client.shutdown()
        #expect(diagnostics.dropped(.expired) == 5)
        #expect(diagnostics.queuedEvents == 0 && diagnostics.isBalanced)
    }

    /// Queues `events` events offline, checkpoints them into the main file and overwrites a page
    /// in its middle; returns the queue's path.
    @discardableResult
    func queueDamagedMidway(_ directory: URL, events: Int) throws -> String {
        let client = try offlineClient(directory)
        for index in 0..<events { client.track(BuilderNodeAdded(nodeType: .move, via: .search, totalNodesAfter: index + 1)) }
        #expect(client.diagnostics().queuedEvents == events)
        client.shutdown()
        let path = directory.appendingPathComponent("queue.sqlite").path
        let database = try HandzSQLiteShim.open(path)
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as! NSNumber).intValue
        let handle = FileHandle(forUpdatingAtPath: path)!
        handle.seek(toFileOffset: UInt64(size / 2 / 4096 * 4096))
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        return path
    }

    @Test("a damaged queue file is rebuilt: readable events recovered, the rest counted as corrupt")
    func corruptionRecovery() throws {
        let directory = try temporaryDirectory("handz-client-unit")
        defer { try? FileManager.default.removeItem(at: directory) }
        try queueDamagedMidway(directory, events: 400)
        let reopened = try offlineClient(directory)
        let diagnostics = reopened.diagnostics()
        reopened.shutdown()
        let recovery = try #require(reopened.recovery)
        #expect(recovery.recovered + recovery.lost == 400)
        #expect(recovery.lost > 0)
        #expect(diagnostics.queuedEvents == recovery.recovered)
        #expect(diagnostics.dropped(.corrupt) == recovery.lost)
        #expect(diagnostics.isBalanced)
    }

    @Test("a rebuild that fails keeps the damaged copy; the next start recovers its events and counts the unreadable ones")
    func failedRebuildLosesNothing() throws {
        let directory = try temporaryDirectory("handz-client-rebuild")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try queueDamagedMidway(directory, events: 400)
        // The rebuild fails at its commit (as on a full disk): the client cannot start this time.
        let prefix = directory.resolvingSymlinksInPath().path
        EventQueue.importFaultForTesting.set { aside in
            if URL(fileURLWithPath: aside).resolvingSymlinksInPath().path.hasPrefix(prefix) { throw SQLiteError(code: 13, message: "injected: database or disk is full") }
        }
        #expect(throws: (any Error).self) { _ = try offlineClient(directory) }
        EventQueue.importFaultForTesting.set(nil)
        #expect(EventQueue.leftoverDamagedCopies(of: path).count == 1)
        // The next start finishes the rebuild from the damaged copy it kept.
        let reopened = try offlineClient(directory)
        let diagnostics = reopened.diagnostics()
        reopened.shutdown()
        let recovery = try #require(reopened.recovery)
        #expect(recovery.recovered + recovery.lost == 400)
        #expect(diagnostics.queuedEvents == recovery.recovered)
        #expect(diagnostics.dropped(.corrupt) == recovery.lost)
        #expect(diagnostics.tracked == 400 && diagnostics.isBalanced)
        #expect(EventQueue.leftoverDamagedCopies(of: path).isEmpty)
    }

    @Test("backoff: full jitter within the window, a floor, the cap, and Retry-After in both forms")
    func backoff() {
        let backoff = Backoff(base: 1, cap: 600)
        #expect(backoff.delay(attempt: 3, retryAfter: nil, random: 1) == 8)
        #expect(backoff.delay(attempt: 3, retryAfter: nil, random: 0) == 0.1)
        #expect(backoff.delay(attempt: 30, retryAfter: nil, random: 1) == 600)
        #expect(backoff.delay(attempt: 1, retryAfter: 7, random: 0.5) == 7)
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(Backoff.retryAfter("120", now: now) == 120)
        #expect(Backoff.retryAfter("Sun, 06 Nov 1994 08:51:37 GMT", now: now) == 120)
        #expect(Backoff.retryAfter("soon", now: now) == nil)
        // No answer can stop delivery for good: huge, infinite or NaN waits read as a day.
        #expect(Backoff.retryAfter("99999999999999999999", now: now) == Backoff.maxRetryAfter)
        #expect(Backoff.retryAfter("inf", now: now) == Backoff.maxRetryAfter)
        #expect(Backoff.retryAfter("nan", now: now) == Backoff.maxRetryAfter)
    }
}

import HandzSQLite
enum HandzSQLiteShim {
    static func open(_ path: String) throws -> SQLiteDatabase { try SQLiteDatabase(path: path) }
}

import Foundation
import HandzAnalyticsClient
import HandzAnalyticsCore
import HandzSQLite
import HandzTestSupport
import Testing
@testable import HandzAnalyticsClient

/// The client sends the catalog each event was validated against (docs/catalog-releases.md), so
/// the server validates it against the same release — also for events queued before an app
/// update, which keep the version of the build that tracked them.
@Suite struct ClientCatalogVersionTests {
    static let body = Array("{\"event_name\":\"x\"}".utf8)

    static func pending(_ count: Int) -> [EventQueue.Pending] {
        (0..<count).map { EventQueue.Pending(name: "screen_viewed", timeMs: Int64($0), body: body, userID: nil) }
    }

    @Test("a queue from before versions were kept gains the column; batches never mix versions and keep queue order")
    func batchesNeverMixVersions() throws {
        let directory = try temporaryDirectory("handz-client-versions")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("queue.sqlite").path
        // The queue an older client wrote: no catalog_version column.
        let old = try SQLiteDatabase(path: path)
        try old.execute("CREATE TABLE queue (seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, time_ms INTEGER NOT NULL, size INTEGER NOT NULL, body BLOB NOT NULL, user_id TEXT)")
        try old.prepare("INSERT INTO queue(name, time_ms, size, body) VALUES ('screen_viewed', 0, ?1, ?2)").run([.integer(Int64(Self.body.count)), .blob(Self.body)])
        _ = old

        let before = try EventQueue(path: path, catalogVersion: "1.3.0")
        try before.commit(Self.pending(2), invalid: 0, maxEvents: 1_000, maxBytes: 1 << 20)
        let after = try EventQueue(path: path, catalogVersion: "1.4.0")
        try after.commit(Self.pending(3), invalid: 0, maxEvents: 1_000, maxBytes: 1 << 20)

        let first = try after.batch(maxEvents: 100, maxBytes: 1 << 20)
        #expect(first.map(\.catalogVersion) == [nil])
        try after.settle(delivered: first.map(\.seq), rejected: [])
        let second = try after.batch(maxEvents: 100, maxBytes: 1 << 20)
        #expect(second.map(\.catalogVersion) == ["1.3.0", "1.3.0"])
        try after.settle(delivered: second.map(\.seq), rejected: [])
        #expect(try after.batch(maxEvents: 100, maxBytes: 1 << 20).map(\.catalogVersion) == ["1.4.0", "1.4.0", "1.4.0"])
    }

    /// Starts `world`'s server on the next catalog: this package's rules at version 1.x+1.0.
    /// Returns that version.
    static func startOnNextCatalog(_ world: ServerWorld) throws -> String {
        let catalog = world.directory.appendingPathComponent("catalog")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: RepositoryCatalog.directory), to: catalog)
        let version = try #require(CatalogVersion(AnalyticsClient.catalogVersion))
        let next = "\(version.major).\(version.minor + 1).0"
        let manifest = catalog.appendingPathComponent("catalog.yaml")
        try String(contentsOf: manifest, encoding: .utf8).replacingOccurrences(of: "catalog_version: \"\(version)\"", with: "catalog_version: \"\(next)\"")
            .write(to: manifest, atomically: true, encoding: .utf8)
        try world.start(["--catalog", catalog.path])
        return next
    }

    @Test("a server a version ahead validates and stores the client's events under the client's catalog version")
    func serverStoresTheClientsVersion() throws {
        let world = try ServerWorld()
        // The server runs the next catalog and keeps the client's release: without the client
        // naming its version, its events would be stored as the next.
        let next = try Self.startOnNextCatalog(world)
        let queue = world.directory.appendingPathComponent("queue.sqlite")
        let client = try AnalyticsClient(configuration: world.configuration(queue: queue), context: StaticDeviceContext())
        for _ in 0..<5 { client.track(ScreenViewed(screenName: "home/demo", entryPoint: .home)) }
        #expect(client.drain(timeout: 30))
        client.shutdown()
        #expect(try world.scalar("SELECT COUNT(*) FROM events WHERE catalog_version = '\(AnalyticsClient.catalogVersion)'") == 5)
        #expect(try world.scalar("SELECT COUNT(*) FROM events WHERE catalog_version = '\(next)'") == 0)
    }

    @Test("an app that pins the catalog its events were generated from (ClientConfiguration.catalog) is validated on the device and stored under that version")
    func pinnedCatalog() throws {
        let world = try ServerWorld()
        // The app was generated from a newer catalog than this package carries: the next minor,
        // in which app_open does not exist (so the device's validation must use the app's rules).
        let next = try Self.startOnNextCatalog(world)

        var pinned = RepositoryCatalog.catalog
        pinned.version = next
        pinned.events.removeAll { $0.name == "app_open" }
        var configuration = world.configuration(queue: world.directory.appendingPathComponent("queue.sqlite"))
        configuration.catalog = pinned
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
        client.track(AppOpen(startType: .cold, launchSource: .direct))
        for _ in 0..<3 { client.track(ScreenViewed(screenName: "home/demo", entryPoint: .home)) }
        #expect(client.drain(timeout: 30))
        let diagnostics = client.diagnostics()
        client.shutdown()
        #expect(diagnostics.dropped(.invalid) == 1, "app_open is not in the app's catalog: \(diagnostics.counters)")
        #expect(try world.scalar("SELECT COUNT(*) FROM events WHERE event_name = 'screen_viewed' AND catalog_version = '\(next)'") == 3)
        #expect(try world.scalar("SELECT COUNT(*) FROM events WHERE catalog_version <> '\(next)'") == 0)
    }
}

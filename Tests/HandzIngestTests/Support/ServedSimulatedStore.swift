import Foundation
import HandzSigning
import HandzTestSupport
import Testing

/// A real `serve` over a simulated store imported by the real `import` command, with an ingest
/// key for sending and a signed-in analyst session for reading pages (synthetic data only).
struct ServedSimulatedStore {
    let directory: URL
    let server: ServerProcess
    let ingest: IngestionKey
    /// The `Cookie` header value of the analyst's session.
    let session: String

    var database: String { directory.appendingPathComponent("handz-events.sqlite").path }

    init(_ name: String, installs: Int, days: Int, seed: Int) throws {
        directory = try temporaryDirectory(name)
        let events = directory.appendingPathComponent("events.ndjson").path
        let simulated = try CommandRunner.run(["simulate", "--installs", "\(installs)", "--days", "\(days)", "--seed", "\(seed)", "--out", events])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let imported = try CommandRunner.run(["import", "--db", directory.appendingPathComponent("handz-events.sqlite").path, events])
        #expect(imported.status == 0, "\(imported.stderr)")
        ingest = IngestionKey.generate(scopes: [.ingest])
        let analyst = IngestionKey.generate(scopes: [.analyst])
        try KeysFile(keys: [ingest, analyst]).save(path: directory.appendingPathComponent("handz-keys.json").path)
        server = try ServerProcess(directory: directory)
        let signedIn = try DashboardSecurityTests.exchange(port: server.port, "POST", "/dashboards/login", body: "key_id=\(analyst.id)&secret=\(analyst.secretHex)")
        session = try #require(signedIn.allHeaders.first?.split(separator: ";").first.map(String.init))
    }

    /// A page, as the signed-in analyst.
    func get(_ page: String) throws -> DashboardSecurityTests.Exchange {
        try DashboardSecurityTests.exchange(port: server.port, "GET", page, headers: ["Cookie": session])
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

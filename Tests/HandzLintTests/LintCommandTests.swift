import Foundation
import HandzTestSupport
import Testing

/// `handz-analytics lint` and `lint status` as a developer runs them: a real process on the
/// fixture app's sources, exit statuses that mean something.
@Suite struct LintCommandTests {
    let fixture = RepositoryCatalog.root.appendingPathComponent("Tests/LintFixtureApp")
    var sources: String { fixture.appendingPathComponent("Sources").path }

    @Test("lint prints compiler-style diagnostics and exits 1 when any is an error")
    func failingLint() throws {
        let result = try CommandRunner.run(["lint", sources])
        #expect(result.status == 1, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 9)
        #expect(lines.allSatisfy { $0.hasPrefix(sources + "/FixtureApp/SaveFlowScreen.swift:") })
        #expect(lines.first?.contains(":13:25: error: [unknown_event] 'flow_saved_succes' is not a catalogued event") == true)
        #expect(result.stderr.contains("8 error(s), 1 warning(s) in 3 file(s)"))
    }

    @Test("the configuration is found from the first path; a clean tree exits 0 and prints nothing")
    func cleanLint() throws {
        let corrected = fixture.appendingPathComponent("Corrected").path
        let config = fixture.appendingPathComponent(".handz-analytics.yml").path
        let result = try CommandRunner.run(["lint", "--config", config, corrected])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.isEmpty)
        // Without the fixture's configuration `logEvent` is not an analytics call: one pii_key fewer.
        let directory = try temporaryDirectory("handz-lint-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent(".handz-analytics.yml")
        try Data().write(to: empty)
        let unconfigured = try CommandRunner.run(["lint", "check", "--config", empty.path, sources, "--format", "json"])
        let json = try JSONSerialization.jsonObject(with: Data(unconfigured.stdout.utf8)) as? [String: Any]
        #expect(json?["errors"] as? Int == 7)
    }

    @Test("lint status lists drift; --strict turns it into exit 1")
    func status() throws {
        let relaxed = try CommandRunner.run(["lint", "status", sources, "--format", "json"])
        #expect(relaxed.status == 0, "\(relaxed.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(relaxed.stdout.utf8)) as? [String: Any]
        let never = json?["never_emitted"] as? [String] ?? []
        #expect(never.contains("app_background") && !never.contains("app_open") && !never.contains("screen_viewed"))
        let placeholders = json?["emitted_placeholders"] as? [[String: Any]] ?? []
        #expect(placeholders.map { $0["event"] as? String } == ["purchase_started"])
        #expect(placeholders.first?["line"] as? Int == 21)

        let strict = try CommandRunner.run(["lint", "status", "--strict", sources])
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("placeholder events emitted: 1\n  \(sources)/FixtureApp/SaveFlowScreen.swift:21:25: purchase_started"))
    }

    @Test("usage mistakes exit 2: a missing path, a broken configuration, an unknown format")
    func usageErrors() throws {
        #expect(try CommandRunner.run(["lint", "/no/such/path"]).status == 2)
        let directory = try temporaryDirectory("handz-lint-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent(".handz-analytics.yml")
        try "severity:\n  pii_key: maybe\n".write(to: config, atomically: true, encoding: .utf8)
        let broken = try CommandRunner.run(["lint", "--config", config.path, sources])
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("[config_invalid_severity]"))
        #expect(try CommandRunner.run(["lint", "--format", "html", sources]).status == 2)
    }
}

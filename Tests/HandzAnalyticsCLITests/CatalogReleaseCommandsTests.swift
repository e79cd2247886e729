import Foundation
import HandzAnalyticsCore
import HandzSQLite
import HandzTestSupport
import Testing

/// `catalog release`, `catalog diff` and `catalog lint` as a catalog maintainer runs them, and a
/// funnel over a range that spans two catalog versions (docs/catalog-releases.md).
@Suite(.serialized) struct CatalogReleaseCommandsTests {
    /// A copy of the repository catalog with its releases, in a fresh directory.
    static func copyCatalog() throws -> URL {
        let root = try temporaryDirectory("handz-catalog-release")
        let catalog = root.appendingPathComponent("catalog")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: RepositoryCatalog.directory), to: catalog)
        return catalog
    }

    static func edit(_ file: URL, _ transform: (String) -> String) throws {
        try transform(try String(contentsOf: file, encoding: .utf8)).write(to: file, atomically: true, encoding: .utf8)
    }

    static func setVersion(_ catalog: URL, _ version: String) throws {
        try edit(catalog.appendingPathComponent("catalog.yaml")) { text in
            text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.hasPrefix("catalog_version:") ? "catalog_version: \"\(version)\"" : String($0) }.joined(separator: "\n")
        }
    }

    /// The next catalog adds `onboarding_tip_viewed` and makes it a way to reach F0's step 2.
    static func addTipEvent(_ catalog: URL) throws {
        try edit(catalog.appendingPathComponent("events/02_onboarding.yaml")) {
            $0.replacingOccurrences(of: "  onboarding_completed:\n", with: """
              onboarding_tip_viewed:
                domain: onboarding
                description: "Synthetic test event: an onboarding tip was shown."
                note: "Test catalog only."
              onboarding_completed:

            """)
        }
        try edit(catalog.appendingPathComponent("funnels.yaml")) {
            $0.replacingOccurrences(of: "      - events: [onboarding_viewed]\n", with: "      - {events: [onboarding_viewed, onboarding_tip_viewed], spec_name: onboarding_viewed, resolution: \"test: a tip also counts\"}\n")
        }
    }

    @Test("a maintainer's release: lint fails the under-bumped catalog naming the change, diff classifies it, the right bump releases")
    func releaseWorkflow() throws {
        let catalog = try Self.copyCatalog()
        defer { try? FileManager.default.removeItem(at: catalog.deletingLastPathComponent()) }
        try Self.addTipEvent(catalog)
        let next = RepositoryCatalog.catalog.version.split(separator: ".").map { Int($0)! }

        // A minor bump: the new event is an addition, but F0 changed, which is breaking.
        try Self.setVersion(catalog, "\(next[0]).\(next[1] + 1).0")
        let underBumped = try CommandRunner.run(["catalog", "lint", "--catalog", catalog.path])
        #expect(underBumped.status == 1)
        #expect(underBumped.stdout.contains("funnel F0: definition changed") && underBumped.stdout.contains("needs a major bump"), "\(underBumped.stdout)")
        let refused = try CommandRunner.run(["catalog", "release", "--catalog", catalog.path])
        #expect(refused.status != 0)

        let diff = try CommandRunner.run(["catalog", "diff", RepositoryCatalog.catalog.version, "catalog", "--catalog", catalog.path, "--format", "json"])
        #expect(diff.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any])
        #expect(report["required_bump"] as? String == "major")
        let changes = try #require(report["changes"] as? [[String: String]])
        #expect(changes.contains { $0["class"] == "addition" && $0["subject"] == "event onboarding_tip_viewed" })
        #expect(changes.contains { $0["class"] == "breaking" && $0["subject"] == "funnel F0" })

        // The major bump passes lint and releases; the release is listed and intact.
        let major = "\(next[0] + 1).0.0"
        try Self.setVersion(catalog, major)
        let lint = try CommandRunner.run(["catalog", "lint", "--catalog", catalog.path])
        #expect(lint.status == 0, "\(lint.stdout)\(lint.stderr)")
        let released = try CommandRunner.run(["catalog", "release", "--catalog", catalog.path])
        #expect(released.status == 0, "\(released.stderr)")
        #expect(FileManager.default.fileExists(atPath: catalog.appendingPathComponent("releases/\(major).json").path))
        #expect(try CommandRunner.run(["catalog", "lint", "--catalog", catalog.path]).status == 0)
        // Releasing the same version twice is refused; editing a release fails lint.
        #expect(try CommandRunner.run(["catalog", "release", "--catalog", catalog.path]).status != 0)
        try Self.edit(catalog.appendingPathComponent("releases/\(major).json")) { $0.replacingOccurrences(of: "Synthetic test event", with: "Edited test event") }
        let edited = try CommandRunner.run(["catalog", "lint", "--catalog", catalog.path])
        #expect(edited.status == 1 && edited.stdout.contains("does not match its recorded sha256"), "\(edited.stdout)")
    }

    @Test("a funnel over two catalog versions notes the step event the older version cannot send; the numbers break down by catalog_version")
    func funnelAcrossVersions() throws {
        let catalog = try Self.copyCatalog()
        let directory = catalog.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.addTipEvent(catalog)
        let old = RepositoryCatalog.catalog.version
        let new = "\(Int(old.split(separator: ".")[0])! + 1).0.0"
        try Self.setVersion(catalog, new)

        let events = directory.appendingPathComponent("events.ndjson")
        try (AnalystCommandsTests.simulate(installs: 60, days: 10, seed: 5).joined(separator: "\n") + "\n").write(to: events, atomically: true, encoding: .utf8)
        let store = directory.appendingPathComponent("store.sqlite").path
        #expect(try CommandRunner.run(["import", "--db", store, "--engine", "sqlite", "--catalog", catalog.path, events.path]).status == 0)
        let range = ["--from", "2026-03-01", "--to", "2026-03-12"]

        // Everything stored under the new version: nothing to note.
        let single = try CommandRunner.run(["funnel", "F0", "--db", store, "--catalog", catalog.path, "--format", "json"] + range)
        #expect(single.status == 0, "\(single.stderr)")
        #expect(!single.stdout.contains("\"notes\""))

        // Installs on app 1.3.9 still run the old catalog.
        let database = try SQLiteDatabase(path: store)
        try database.execute("UPDATE events SET catalog_version = '\(old)' WHERE app_version = '1.3.9'")
        // The log was edited by hand, outside its deletion journal: the column store is sealed again.
        #expect(try CommandRunner.run(["layer", "--db", store, "--rebuild"]).status == 0)
        let mixed = try CommandRunner.run(["funnel", "F0", "--db", store, "--catalog", catalog.path, "--format", "json", "--breakdown", "catalog_version"] + range)
        #expect(mixed.status == 0, "\(mixed.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(mixed.stdout.utf8)) as? [String: Any])
        let notes = try #require(report["notes"] as? [String])
        #expect(notes == ["`onboarding_tip_viewed` exists from \(new); installs on \(old) cannot reach step 2 through it"])
        let buckets = try #require(report["breakdown"] as? [[String: Any]])
        #expect(Set(buckets.compactMap { $0["value"] as? String }) == [old, new])
        let table = try CommandRunner.run(["funnel", "F0", "--db", store, "--catalog", catalog.path] + range)
        #expect(table.stdout.contains("note: `onboarding_tip_viewed` exists from \(new)"))

        // The static dashboards carry the note under the F0 panel.
        let pages = directory.appendingPathComponent("report")
        let rendered = try CommandRunner.run(["dashboard", "render", "--db", store, "--catalog", catalog.path, "--out", pages.path,
                                              "--dashboards", RepositoryCatalog.root.appendingPathComponent("dashboards").path] + range)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let html = try FileManager.default.contentsOfDirectory(atPath: pages.path).filter { $0.hasSuffix(".html") }
            .map { try String(contentsOf: pages.appendingPathComponent($0), encoding: .utf8) }.joined()
        #expect(html.contains("Catalog versions: `onboarding_tip_viewed` exists from \(new)"))
    }
}

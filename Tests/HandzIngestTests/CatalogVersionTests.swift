import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzCatalogReleases
import HandzCompression
import HandzIngest
import HandzSigning
import HandzSQLite
import HandzTestSupport
import Testing

/// Every event is validated against the catalog its app was built with (docs/catalog-releases.md):
/// a real server on a 2.0.0 catalog that keeps the 1.1.0 release.
@Suite struct CatalogVersionTests {
    // MARK: The policy

    @Test("which catalog a batch's catalog_version chooses", arguments: [
        (nil, CatalogVersionPolicy.Choice.use("2.0.0")),
        ("2.0.0", .use("2.0.0")),
        ("1.1.0", .use("1.1.0")),
        ("1.0.0", .refuse(.catalogVersionRetired)),
        ("2.1.0", .use("2.0.0")),
        ("2.0.7", .use("2.0.0")),
        ("1.2.0", .use("1.1.0")),
        ("3.0.0", .refuse(.unknownCatalogVersion)),
        ("0.9.0", .refuse(.unknownCatalogVersion)),
        ("1.0.5", .refuse(.unknownCatalogVersion)),
        ("2.0", .refuse(.unknownCatalogVersion)),
        ("latest", .refuse(.unknownCatalogVersion)),
    ] as [(String?, CatalogVersionPolicy.Choice)])
    func policy(_ claimed: String?, _ expected: CatalogVersionPolicy.Choice) {
        #expect(CatalogVersionPolicy.choose(claimed: claimed, current: "2.0.0", kept: ["1.1.0", "2.0.0"], retired: ["1.0.0"]) == expected)
    }

    // MARK: Catalogs built for the test

    /// A copy of the repository catalog (rule files and QA rules) at `version`, edited by `edit`
    /// (relative path → text transform).
    static func catalog(at directory: URL, version: String, retired: [String] = [], edit: [String: (String) -> String] = [:]) throws {
        let files = CatalogFiles.directory(RepositoryCatalog.directory).ruleFiles()
        for (path, text) in files {
            var text = text
            if path == "catalog.yaml" {
                text = text.replacingOccurrences(of: "catalog_version: \"\(RepositoryCatalog.catalog.version)\"",
                                                 with: "catalog_version: \"\(version)\"\nretired_versions: [\(retired.map { "\"\($0)\"" }.joined(separator: ", "))]")
            }
            if let transform = edit[path] { text = transform(text) }
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try FileManager.default.copyItem(at: URL(fileURLWithPath: RepositoryCatalog.directory).appendingPathComponent("qa"), to: directory.appendingPathComponent("qa"))
    }

    /// 1.1.0 has `app_theme_viewed` (retired in 2.0.0), `screen_viewed.entry_point` optional and
    /// `launch_source: push`; 2.0.0 makes `entry_point` required, removes `push`, drops the
    /// event, and retires 1.0.0. (The issue's example calls the new one 1.3.0; the release lint
    /// requires a major bump for these changes, so here it is 2.0.0.)
    static func makeCatalogs(_ root: URL) throws -> URL {
        let old = root.appendingPathComponent("catalog-1.1.0")
        try catalog(at: old, version: "1.1.0", edit: ["events/01_app.yaml": { text in
            text.replacingOccurrences(of: "  app_background:\n", with: """
              app_theme_viewed:
                domain: app
                description: "Synthetic test event, catalogued in 1.1.0 only."
                note: "Test catalog only."
                properties:
                  start_type: required
              app_background:

            """)
        }])
        let old110 = try CatalogLoader.loadChecked(directory: old.path)
        #expect(old110.event(named: "app_theme_viewed") != nil)
        let release = CatalogRelease(version: "1.1.0", previous: nil, files: CatalogFiles.directory(old.path).ruleFiles())

        let new = root.appendingPathComponent("catalog-2.0.0")
        try catalog(at: new, version: "2.0.0", retired: ["1.0.0"], edit: [
            "events/01_app.yaml": { $0.replacingOccurrences(of: "      previous_screen_name: optional\n      entry_point: optional", with: "      previous_screen_name: optional\n      entry_point: required") },
            "properties.yaml": { $0.replacingOccurrences(of: "launch_source: {type: string, enum: [direct, push, deep_link]", with: "launch_source: {type: string, enum: [direct, deep_link]") },
        ])
        try FileManager.default.createDirectory(at: new.appendingPathComponent("releases"), withIntermediateDirectories: true)
        try release.json().write(to: new.appendingPathComponent("releases/1.1.0.json"))
        return new
    }

    /// An `app_open` valid in both catalogs.
    static func appOpen(seed: UInt64) -> String {
        var open = EventBuilder("app_open", seed: seed)
        open.setProperty("launch_source", "direct")
        return open.json
    }

    /// Valid for 1.1.0, each refused by 2.0.0 for one reason (fresh event ids per `seed`).
    static func oldAppEvents(seed: UInt64 = 11) -> [String] {
        var screen = EventBuilder("screen_viewed", seed: seed)
        screen.setProperty("entry_point", nil)
        var open = EventBuilder("app_open", seed: seed + 1)
        open.setProperty("launch_source", "push")
        var theme = EventBuilder("app_open", seed: seed + 2)
        theme["event_name"] = "app_theme_viewed"
        theme.properties = ["start_type": "cold"]
        return [screen.json, open.json, theme.json]
    }

    /// Valid for 2.0.0.
    static func newAppEvents() -> [String] {
        var screen = EventBuilder("screen_viewed", seed: 21)
        screen.setProperty("entry_point", "home")
        var open = EventBuilder("app_open", seed: 22)
        open.setProperty("launch_source", "deep_link")
        return [screen.json, open.json]
    }

    static func send(_ client: IngestHTTPClient, _ events: [String], version: String?) async throws -> IngestHTTPClient.Answer {
        let field = version.map { ",\"catalog_version\":\"\($0)\"" } ?? ""
        return try await client.send(body: Gzip.compress(Array("{\"events\":[\(events.joined(separator: ","))]\(field)}".utf8)))
    }

    static func codes(_ answer: IngestHTTPClient.Answer) -> [[String]] {
        ((answer.json?["rejected"] as? [[String: Any]]) ?? []).map { rejection in
            ((rejection["errors"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String }
        }
    }

    @Test("a server on 2.0.0 accepts a 1.1.0 app's events under 1.1.0, refuses a retired version, validates 2.0.0 apps against 2.0.0; receipts and rows carry the version")
    func serverKeepsOldAppsWorking() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("handz-catalog-versions-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let catalogDirectory = try Self.makeCatalogs(root)
        let serverDirectory = root.appendingPathComponent("server")
        try FileManager.default.createDirectory(at: serverDirectory, withIntermediateDirectories: true)
        let server = try ServerProcess(directory: serverDirectory, arguments: ServerProcessTests.sqliteLog + ["--catalog", catalogDirectory.path])
        defer { server.stop() }
        let client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())

        // The old app says 1.1.0: all three are valid there.
        let old = try await Self.send(client, Self.oldAppEvents(), version: "1.1.0")
        #expect(old.status == 200)
        #expect(old.json?["accepted"] as? Int == 3, "\(old.body)")
        #expect(old.json?["catalog_version"] as? String == "1.1.0")

        // Sent without a version, the same events meet today's catalog, each for its own rule.
        let unversioned = try await Self.send(client, Self.oldAppEvents(seed: 41), version: nil)
        #expect(unversioned.json?["accepted"] as? Int == 0)
        #expect(Self.codes(unversioned) == [["missing_property"], ["invalid_enum"], ["unknown_event"]], "\(unversioned.body)")
        #expect(unversioned.json?["catalog_version"] as? String == "2.0.0")

        // A new app is validated against 2.0.0: its valid events pass, an old-style one does not.
        let new = try await Self.send(client, Self.newAppEvents() + [Self.oldAppEvents(seed: 51)[1]], version: "2.0.0")
        #expect(new.json?["accepted"] as? Int == 2, "\(new.body)")
        #expect(Self.codes(new).flatMap { $0 } == ["invalid_enum"])

        // A newer minor falls back to the newest 2.x; a retired or unknown version is refused, per event.
        let newer = try await Self.send(client, [Self.appOpen(seed: 31)], version: "2.1.0")
        #expect(newer.json?["accepted"] as? Int == 1 && newer.json?["catalog_version"] as? String == "2.0.0")
        let retired = try await Self.send(client, [Self.appOpen(seed: 32), Self.appOpen(seed: 33)], version: "1.0.0")
        #expect(retired.status == 200)
        #expect(Self.codes(retired) == [["catalog_version_retired"], ["catalog_version_retired"]])
        let unknown = try await Self.send(client, [Self.appOpen(seed: 34)], version: "3.0.0")
        #expect(Self.codes(unknown) == [["unknown_catalog_version"]])

        // Stored rows carry the version they were validated against; refusals are in quarantine.
        let database = try SQLiteDatabase(path: serverDirectory.appendingPathComponent("handz-events.sqlite").path)
        #expect(try database.scalar("SELECT COUNT(*) FROM events WHERE catalog_version = '1.1.0'") == 3)
        #expect(try database.scalar("SELECT COUNT(*) FROM events WHERE catalog_version = '2.0.0'") == 3)
        #expect(try database.scalar("SELECT COUNT(*) FROM events WHERE event_name = 'app_theme_viewed'") == 1)
        #expect(try database.scalar("SELECT COUNT(*) FROM rejected_events WHERE error_codes = 'catalog_version_retired'") == 2)
        #expect(try database.scalar("SELECT COUNT(*) FROM rejected_events WHERE error_codes = 'unknown_catalog_version'") == 1)

        // The client config tells apps on the retired version to stop.
        let config = try await client.send(body: [], path: "/v1/client-config", method: "GET", encoding: nil)
        #expect(config.status == 200)
        #expect((config.json?["disabled_catalog_versions"] as? [String]) == ["1.0.0"])
    }

    @Test("a release edited after it was made stops the server from starting")
    func editedReleaseRefused() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("handz-catalog-edited-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let catalogDirectory = try Self.makeCatalogs(root)
        let path = catalogDirectory.appendingPathComponent("releases/1.1.0.json")
        let text = try String(contentsOf: path, encoding: .utf8)
        try text.replacingOccurrences(of: "enum: [direct, push, deep_link]", with: "enum: [direct, push, deep_link, widget]").write(to: path, atomically: true, encoding: .utf8)
        let serverDirectory = root.appendingPathComponent("server")
        try FileManager.default.createDirectory(at: serverDirectory, withIntermediateDirectories: true)
        #expect(throws: ServerProcess.StartFailure.self) {
            _ = try ServerProcess(directory: serverDirectory, arguments: ["--catalog", catalogDirectory.path], timeout: 30)
        }
    }
}

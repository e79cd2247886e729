import Foundation
import HandzLint
import HandzTestSupport
import Testing

/// The build plugin's per-file cache: unchanged files are not parsed again, changed ones are,
/// and a cache made for another catalog, configuration or tool is thrown away.
@Suite struct CacheTests {
    @Test("a second run takes unchanged files from the cache and re-lints the changed one")
    func reuse() throws {
        let root = try temporaryDirectory("handz-lint-cache")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = (0..<3).map { root.appendingPathComponent("Screen\($0).swift").path }
        for file in files { try #"track("app_open", properties: [:])"#.write(toFile: file, atomically: true, encoding: .utf8) }
        let run = LintRun(linter: standardLinter)
        let cacheFile = root.appendingPathComponent("lint-cache.json").path

        var cache: LintCache? = LintCache.load(path: cacheFile, fingerprint: 42)
        let first = try run.lint(files: files, cache: &cache)
        #expect(cache?.hits == 0)
        try cache?.save(path: cacheFile)

        cache = LintCache.load(path: cacheFile, fingerprint: 42)
        #expect(try run.lint(files: files, cache: &cache) == first)
        #expect(cache?.hits == 3)

        try #"track("app_opn", properties: [:])"#.write(toFile: files[1], atomically: true, encoding: .utf8)
        cache = LintCache.load(path: cacheFile, fingerprint: 42)
        let changed = try run.lint(files: files, cache: &cache)
        #expect(cache?.hits == 2)
        #expect(changed.diagnostics.map(\.rule) == [.unknownEvent])
        #expect(changed.diagnostics.first?.location.path == files[1])
    }

    @Test("a cache made for another fingerprint starts empty")
    func otherFingerprint() throws {
        let root = try temporaryDirectory("handz-lint-cache")
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("A.swift").path
        try #"track("app_open", properties: [:])"#.write(toFile: file, atomically: true, encoding: .utf8)
        let cacheFile = root.appendingPathComponent("lint-cache.json").path
        var cache: LintCache? = LintCache(fingerprint: 1)
        _ = try LintRun(linter: standardLinter).lint(files: [file], cache: &cache)
        try cache?.save(path: cacheFile)
        cache = LintCache.load(path: cacheFile, fingerprint: 2)
        _ = try LintRun(linter: standardLinter).lint(files: [file], cache: &cache)
        #expect(cache?.hits == 0)
    }

    @Test("the fingerprint changes with the configuration, the catalog and the engine")
    func fingerprint() throws {
        let root = try temporaryDirectory("handz-lint-fingerprint")
        defer { try? FileManager.default.removeItem(at: root) }
        let catalog = root.appendingPathComponent("catalog")
        try FileManager.default.copyItem(atPath: RepositoryCatalog.directory, toPath: catalog.path)
        let config = root.appendingPathComponent(".handz-analytics.yml")
        try "calls: [track]\n".write(to: config, atomically: true, encoding: .utf8)
        let setup = LintSetup(configuration: .standard, configurationPath: config.path, catalogDirectory: catalog.path)
        let original = setup.fingerprint(engine: "1")
        #expect(setup.fingerprint(engine: "1") == original)
        #expect(setup.fingerprint(engine: "2") != original)
        try "calls: [track, logEvent]\n".write(to: config, atomically: true, encoding: .utf8)
        let reconfigured = setup.fingerprint(engine: "1")
        #expect(reconfigured != original)
        let events = catalog.appendingPathComponent("events/01_app.yaml")
        try (String(contentsOf: events, encoding: .utf8) + "\n# reviewed\n").write(to: events, atomically: true, encoding: .utf8)
        #expect(setup.fingerprint(engine: "1") != reconfigured)
    }
}

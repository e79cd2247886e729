import Foundation
import HandzTestSupport
import Testing

/// The issue's proof that an app build fails in place: `Tests/LintFixtureApp` depends on this
/// package by path and uses the build tool plugin. It is built as shipped (one mistake per rule)
/// and again with `Corrected/SaveFlowScreen.swift`. Both builds share one scratch directory, so
/// only the first pays for compiling swift-syntax and the tool: `.build-lint-fixture/scratch` by
/// default, or the one `HANDZ_FIXTURE_SCRATCH` names with the build flags in
/// `HANDZ_FIXTURE_BUILD_FLAGS` — what scripts/test.sh passes: its own build directory, where
/// swift-syntax and the tool were built minutes before with those flags, so the fixture's two
/// builds compile only what differs (about 40 s; the command plugin's run, which takes no coverage
/// flag, still builds its tool: 243 s in all on a clean clone, against 460 s). That build rewrites the directory's
/// build plan for the fixture's graph, so the test script runs it after everything else that
/// reads the plan (the tests, coverage, the docs).
@Suite struct FixtureAppBuildTests {
    static let work = RepositoryCatalog.root.appendingPathComponent(".build-lint-fixture")
    static let app = work.appendingPathComponent("app")
    static let environment = ProcessInfo.processInfo.environment
    static let scratch = environment["HANDZ_FIXTURE_SCRATCH"].map { URL(fileURLWithPath: $0) } ?? work.appendingPathComponent("scratch")
    static let buildFlags = (environment["HANDZ_FIXTURE_BUILD_FLAGS"] ?? "").split(separator: " ").map(String.init)

    /// The diagnostics the shipped fixture must produce, and no others: `line rule severity`.
    static let expected = [
        "13 unknown_event error", "17 pii_key error", "18 unknown_property error", "20 dynamic_event_name error",
        "21 event_disabled error", "22 pii_value error", "23 unknown_event error", "24 pii_key error",
        "25 random_logging warning",
    ]

    @Test("the fixture app's build fails with exactly the expected diagnostics, then builds cleanly once corrected", .timeLimit(.minutes(30)))
    func fixtureAppBuild() throws {
        // The copy sits two levels below the repository, so the manifest's `../..` still finds it.
        try? FileManager.default.removeItem(at: Self.app)
        try FileManager.default.createDirectory(at: Self.work, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: RepositoryCatalog.root.appendingPathComponent("Tests/LintFixtureApp"), to: Self.app)
        let screen = Self.app.appendingPathComponent("Sources/FixtureApp/SaveFlowScreen.swift")

        let broken = try swift(["build"], log: "broken", timeout: 1500)
        #expect(broken.status != 0, "the build must fail:\n\(broken.output)")
        let diagnostics = Self.lintDiagnostics(broken.output)
        #expect(Set(diagnostics.map(\.path)) == [screen.path], "\(broken.output)")
        #expect(diagnostics.map { "\($0.line) \($0.rule) \($0.severity)" } == Self.expected, "\(broken.output)")
        #expect(broken.output.contains("SaveFlowScreen.swift:22:70: error: [pii_value] string literal looks like an email address"))
        #expect(!broken.output.contains("bob@example.com"), "the PII value rule must not print the literal")

        try FileManager.default.removeItem(at: screen)
        try FileManager.default.copyItem(at: Self.app.appendingPathComponent("Corrected/SaveFlowScreen.swift"), to: screen)
        let corrected = try swift(["build"], log: "corrected", timeout: 600)
        #expect(corrected.status == 0, "\(corrected.output)")
        #expect(Self.lintDiagnostics(corrected.output).isEmpty, "\(corrected.output)")

        // The command plugin on the same sources: in sync would need every catalogued event.
        let status = try swift(["package", "handz-lint", "--status", "--strict"], log: "status", timeout: 600)
        #expect(status.status != 0, "\(status.output)")
        #expect(status.output.contains("catalogued events never emitted: "), "\(status.output)")
        #expect(status.output.contains("placeholder events emitted: 0"), "\(status.output)")
        #expect(!status.output.contains("\n  screen_viewed\n"), "screen_viewed is emitted: \(status.output)")
    }

    /// Runs `swift SUBCOMMAND --package-path app --scratch-path scratch …` with its output in
    /// `.build-lint-fixture/LOG.log` (a file, so no pipe can fill up), killed after `timeout` seconds.
    func swift(_ arguments: [String], log name: String, timeout: TimeInterval) throws -> (status: Int32, output: String) {
        let log = Self.work.appendingPathComponent("\(name).log")
        try Data().write(to: log)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Its own scratch: no index store (an editor's, not a build's; this package has no tests to
        // discover) and no debug information, which only cost time here. A shared one: its flags.
        // `swift package` (the command plugin's run) takes the same flags but the coverage one,
        // which only `build` and `test` know. Both are part of the build parameters: with the
        // same debug-information format, a directory built without coverage gives the run the
        // plugin's tool as the builds left it (9 s); under coverage (scripts/test.sh) it still
        // builds swift-syntax and the tool again (98 s on a clean clone).
        var flags = Self.environment["HANDZ_FIXTURE_SCRATCH"] != nil ? Self.buildFlags : ["--disable-index-store", "-debug-info-format", "none"]
        if arguments[0] == "package" { flags.removeAll { $0 == "--enable-code-coverage" } }
        process.arguments = ["swift", arguments[0], "--package-path", Self.app.path, "--scratch-path", Self.scratch.path]
            + flags + arguments.dropFirst()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.5) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            Issue.record("swift \(arguments.joined(separator: " ")) did not finish in \(Int(timeout)) s")
        }
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// The lint's lines in a build log: `path:line:column: error|warning: [rule] message`.
    static func lintDiagnostics(_ output: String) -> [(path: String, line: Int, rule: String, severity: String)] {
        output.split(separator: "\n").compactMap { line in
            guard let match = line.wholeMatch(of: /(.+):(\d+):\d+: (error|warning): \[([a-z_]+)\] .*/) else { return nil }
            return (String(match.1), Int(match.2)!, String(match.4), String(match.3))
        }
    }
}

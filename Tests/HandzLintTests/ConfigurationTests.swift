import Foundation
import HandzLint
import HandzTestSupport
import Testing

/// `.handz-analytics.yml`: where it is found, what it changes, how it fails.
@Suite struct ConfigurationTests {
    func parse(_ text: String) throws(LintConfigurationError) -> LintConfiguration {
        try LintConfiguration.parse(text, path: "/app/.handz-analytics.yml", baseDirectory: "/app")
    }

    @Test("every key is read; relative paths are resolved against the file's directory")
    func fullFile() throws {
        let configuration = try parse("""
            catalog: ../handz/catalog
            calls:
              - track
              - name: logEvent
                event: name
                properties: parameters
            logging: [print, log]
            exclude: [Generated/, /abs/Vendor]
            severity:
              random_logging: error
              dynamic_properties: off
            """)
        #expect(configuration.catalogDirectory == "/handz/catalog")
        #expect(configuration.calls == [.track, CallShape(name: "logEvent", eventLabel: "name", propertiesLabel: "parameters")])
        #expect(configuration.loggingFunctions == ["print", "log"])
        #expect(configuration.excludedPaths == ["/app/Generated", "/abs/Vendor"])
        #expect(configuration.severity(of: .randomLogging) == .error)
        #expect(configuration.severity(of: .dynamicProperties) == nil)
        #expect(configuration.severity(of: .piiKey) == .error)
    }

    @Test("an empty file is the standard configuration")
    func emptyFile() throws {
        #expect(try parse("") == .standard)
    }

    @Test("a configured call shape is linted with its own labels; severities change what is reported")
    func configuredShapes() throws {
        let configuration = try parse("""
            calls:
              - name: logEvent
                event: name
                properties: parameters
            severity:
              random_logging: error
              unknown_property: off
            """)
        let linter = SourceLinter(catalog: RepositoryCatalog.catalog, configuration: configuration)
        let diagnostics = lint("""
            Analytics.logEvent(name: "app_opn", parameters: ["colour": 1, "user_email": email])
            analytics.track("not_checked_any_more")
            print("x")
            """, linter: linter)
        #expect(diagnostics.map { "\($0.rule.id)@\($0.location.line)" } == ["unknown_event@3", "pii_key@3", "random_logging@5"])
        #expect(diagnostics.last?.severity == .error)
        #expect(findings(#"Analytics.logEvent(name: "app_open", parameters: ["colour": 1])"#, linter: linter) == [])
    }

    @Test("mistakes are reported with a stable code and the line", arguments: [
        ("colour: red", "config_malformed", 1),
        ("calls: track", "config_malformed", 1),
        ("severity:\n  no_such_rule: error", "config_unknown_rule", 2),
        ("severity:\n  pii_key: fatal", "config_invalid_severity", 2),
        ("calls:\n  - {label: x}", "config_malformed", 2),
        ("catalog: [", "config_malformed", 1),
    ])
    func mistakes(text: String, code: String, line: Int) {
        #expect {
            _ = try parse(text)
        } throws: { error in
            guard let error = error as? LintConfigurationError else { return false }
            return error.code == code && error.description.hasPrefix("/app/.handz-analytics.yml:\(line): error: [\(code)]")
        }
    }

    @Test("the nearest file is found by walking up from a target's directory")
    func discovery() throws {
        let root = try temporaryDirectory("handz-lint-config")
        defer { try? FileManager.default.removeItem(at: root) }
        let target = root.appendingPathComponent("App/Sources/Feature")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        #expect(LintConfiguration.find(from: target.path)?.hasPrefix(root.path) != true)
        let file = root.appendingPathComponent("App/.handz-analytics.yml")
        try "severity:\n  random_logging: off\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(LintConfiguration.find(from: target.path) == file.path)
        let setup = try LintSetup.resolve(configurationPath: nil, searchFrom: target.path, catalogDirectory: nil, fallbackCatalog: { "/fallback" })
        #expect(setup.configurationPath == file.path)
        #expect(setup.configuration.severity(of: .randomLogging) == nil)
        #expect(setup.catalogDirectory == "/fallback")
    }

    @Test("excluded paths are left out when directories are expanded and when files are named")
    func exclusion() throws {
        let root = try temporaryDirectory("handz-lint-exclude")
        defer { try? FileManager.default.removeItem(at: root) }
        for path in ["Sources/A.swift", "Sources/Generated/B.swift", "Sources/.hidden/C.swift", "Sources/notes.txt"] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try "track(\"app_open\")\n".write(to: url, atomically: true, encoding: .utf8)
        }
        let configuration = try LintConfiguration.parse("exclude: [Sources/Generated]", path: "x", baseDirectory: root.path)
        let run = LintRun(linter: SourceLinter(catalog: RepositoryCatalog.catalog, configuration: configuration))
        let sources = root.appendingPathComponent("Sources").path
        #expect(try run.swiftFiles(in: [sources]) == [sources + "/A.swift"])
        #expect(try run.swiftFiles(in: [sources + "/Generated/B.swift"]) == [])
        #expect(throws: LintRun.Failure.missingPath(root.path + "/nope")) { try run.swiftFiles(in: [root.path + "/nope"]) }
    }
}

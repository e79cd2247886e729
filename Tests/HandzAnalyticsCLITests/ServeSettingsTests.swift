import Foundation
import HandzAnalyticsCore
import HandzTestSupport
import Testing

/// `serve`'s settings from a YAML file and the environment as well as the command line, with the
/// command line over the environment over the file (issue 37 §3); the catalog found from
/// `HANDZ_CATALOG` and beside the binary; `--version` and the grouped help. Against the real
/// binary and a real server on loopback.
@Suite(.serialized) struct ServeSettingsTests {
    /// The most events a batch may hold on a running server, read from its own answer: a batch of
    /// 20 is refused with "a batch holds at most N events" when N < 20.
    func batchLimit(_ server: ServerProcess) async throws -> Int? {
        let client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())
        let event = EventBuilder("app_open").json
        let answer = try await client.send(events: Array(repeating: event, count: 20))
        guard answer.status == 413 else { return nil }
        let words = answer.body.split(whereSeparator: { !$0.isNumber })
        return words.compactMap { Int($0) }.first
    }

    func serve(_ directory: URL, _ arguments: [String] = [], environment: [String: String]) async throws -> (limit: Int?, printed: String) {
        let server = try ServerProcess(directory: directory, arguments: arguments, environment: environment)
        defer { server.stop() }
        return (try await batchLimit(server), server.printed)
    }

    @Test("the settings file, then the environment, then the command line: each wins over the one before; which names came from where is printed, never values")
    func precedence() async throws {
        let directory = try temporaryDirectory("handz-serve-settings")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("serve.yaml")
        try "# synthetic settings\nmax-events: 3\nmax-body-bytes: 999999\nno-dashboards: true\n".write(to: file, atomically: true, encoding: .utf8)

        let fromFile = try await serve(directory, environment: ["HANDZ_SERVE_CONFIG": file.path])
        #expect(fromFile.limit == 3)
        #expect(fromFile.printed.contains("settings from \(file.path) (max-body-bytes, max-events, no-dashboards)"))
        #expect(!fromFile.printed.contains("999999"), "values are not printed")

        let fromEnvironment = try await serve(directory, environment: ["HANDZ_SERVE_CONFIG": file.path, "HANDZ_SERVE_MAX_EVENTS": "5"])
        #expect(fromEnvironment.limit == 5)
        #expect(fromEnvironment.printed.contains("from the environment (max-events)"))

        let fromCommandLine = try await serve(directory, ["--max-events", "7", "--config", file.path], environment: ["HANDZ_SERVE_MAX_EVENTS": "5"])
        #expect(fromCommandLine.limit == 7)
        #expect(!fromCommandLine.printed.contains("max-events"), "an option on the command line is not taken from elsewhere")

        let defaults = try await serve(directory, environment: [:])
        #expect(defaults.limit == nil, "the default (1,000) takes 20 events")
    }

    @Test("a misspelt variable or key, a flag set to neither true nor false, and an unreadable file are usage errors naming where they came from, not the value")
    func mistakes() throws {
        let directory = try temporaryDirectory("handz-serve-settings-mistakes")
        defer { try? FileManager.default.removeItem(at: directory) }
        func refused(_ environment: [String: String], _ arguments: [String] = []) throws -> String {
            let run = try CommandRunner.run(["serve", "--catalog", RepositoryCatalog.directory, "--port", "0"] + arguments,
                                            workingDirectory: directory, environment: environment, timeout: 30)
            #expect(run.status == 2, "\(run.stderr)")
            return run.stderr
        }
        let misspelt = try refused(["HANDZ_SERVE_MAX_EVENT": "12345"])
        #expect(misspelt.contains("HANDZ_SERVE_MAX_EVENT") && misspelt.contains("no option --max-event") && !misspelt.contains("12345"))

        let flag = try refused(["HANDZ_SERVE_NO_DASHBOARDS": "sometimes"])
        #expect(flag.contains("--no-dashboards is a flag") && !flag.contains("sometimes"))

        let file = directory.appendingPathComponent("serve.yaml")
        try "max-events: 3\nlake-intervl: 60\n".write(to: file, atomically: true, encoding: .utf8)
        let key = try refused([:], ["--config", file.path])
        #expect(key.contains(file.path) && key.contains("no option --lake-intervl"))

        try "keys:\n  a: one\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(try refused([:], ["--config", file.path]).contains("keys must be a value or a list of values"))
        try "max-events: [3, 4]\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(try refused([:], ["--config", file.path]).contains("--max-events takes one value"))

        #expect(try refused(["HANDZ_SERVE_CONFIG": directory.appendingPathComponent("absent.yaml").path]).contains("cannot read the settings file"))
        // Nothing was started: no store, no keys file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["serve.yaml"])
    }

    @Test("the catalog comes from --catalog, else HANDZ_CATALOG, else the working directory's, else beside the binary")
    func catalogLookup() throws {
        let outside = try temporaryDirectory("handz-catalog-lookup")
        defer { try? FileManager.default.removeItem(at: outside) }
        // A working directory with no catalog/ above it: the variable decides.
        #expect(try CommandRunner.run(["catalog", "lint"], workingDirectory: outside, environment: ["HANDZ_CATALOG": RepositoryCatalog.directory]).status == 0)
        let absent = try CommandRunner.run(["catalog", "lint"], workingDirectory: outside, environment: ["HANDZ_CATALOG": outside.appendingPathComponent("nowhere").path])
        #expect(absent.status != 0)

        // An installed layout: the binary (a hard link, same file system) with a catalog beside it
        // that is deliberately broken, so finding it is visible (the source tree's would pass).
        let installed = CommandRunner.productsDirectory.deletingLastPathComponent().appendingPathComponent("handz-installed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: installed) }
        try FileManager.default.createDirectory(at: installed, withIntermediateDirectories: true)
        let binary = installed.appendingPathComponent("handz-analytics")
        do { try FileManager.default.linkItem(at: CommandRunner.product("handz-analytics"), to: binary) }
        catch { try FileManager.default.copyItem(at: CommandRunner.product("handz-analytics"), to: binary) }
        try FileManager.default.copyItem(at: URL(fileURLWithPath: RepositoryCatalog.directory), to: installed.appendingPathComponent("catalog"))
        let yaml = installed.appendingPathComponent("catalog/catalog.yaml")
        try (String(contentsOf: yaml, encoding: .utf8) + "\nversion: [not, a, version\n").write(to: yaml, atomically: true, encoding: .utf8)
        let run = try childRun(binary.path, ["catalog", "lint"], in: outside)
        #expect(run != 0, "the broken catalog beside the binary was used")
        let named = try childRun(binary.path, ["catalog", "lint"], in: outside, environment: ["HANDZ_CATALOG": RepositoryCatalog.directory])
        #expect(named == 0, "HANDZ_CATALOG wins over the catalog beside the binary")
    }

    /// Runs a binary that is not one of the built products; returns its exit status.
    func childRun(_ executable: String, _ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> Int32 {
        let process = try ChildProcess(executable: executable, arguments: arguments, workingDirectory: directory.path, environment: environment)
        guard process.wait(timeout: 60) else {
            process.terminate(grace: 5)
            Issue.record("\(arguments) did not finish within 60 s")
            return -1
        }
        return process.terminationStatus
    }

    @Test("--version prints the package's version on the root command and on a subcommand; --help lists the commands in four groups")
    func versionAndGroups() throws {
        for arguments in [["--version"], ["funnel", "--version"]] {
            let run = try CommandRunner.run(arguments)
            #expect(run.status == 0 && run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == HandzRelease.version, "\(arguments)")
        }
        let help = try CommandRunner.run(["--help"]).stdout
        let headings = ["INGEST", "ANALYSE", "CATALOG", "OPERATE"].map { help.range(of: $0 + " SUBCOMMANDS:")?.lowerBound }
        #expect(headings.allSatisfy { $0 != nil }, "\(help)")
        #expect(headings.compactMap { $0 } == headings.compactMap { $0 }.sorted(), "in that order")
    }
}

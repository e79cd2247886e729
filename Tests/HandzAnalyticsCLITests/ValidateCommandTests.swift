import Foundation
import HandzSynthetic
import HandzTestSupport
import Testing

/// `handz-analytics validate` as a user runs it: a real process, real files, exit statuses.
@Suite struct ValidateCommandTests {
    func corpus(count: Int, seed: UInt64, invalidFraction: Double) -> (text: String, labels: [String]) {
        var generator = CorpusGenerator(catalog: RepositoryCatalog.catalog, seed: seed, invalidFraction: invalidFraction)
        var lines: [String] = []
        var labels: [String] = []
        for _ in 0..<count {
            let (line, label) = generator.next()
            lines.append(String(decoding: line, as: UTF8.self))
            labels.append(label)
        }
        return (lines.joined(separator: "\n") + "\n", labels)
    }

    @Test("all-valid input: summary with zero rejections, exit 0")
    func allValid() throws {
        let (text, _) = corpus(count: 300, seed: 1, invalidFraction: 0)
        let result = try CommandRunner.run(["validate", "-"], stdin: Data(text.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "{\"accepted\":300,\"rejected\":0,\"by_code\":{}}\n")
    }

    @Test("mixed input: counts by code, exit 1, verdict lines in order")
    func mixed() throws {
        let (text, labels) = corpus(count: 400, seed: 2, invalidFraction: 0.5)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("events.ndjson")
        try text.write(to: file, atomically: true, encoding: .utf8)

        let summary = try CommandRunner.run(["validate", file.path])
        #expect(summary.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(summary.stdout.utf8)) as! [String: Any]
        let valid = labels.filter { $0 == "valid" }.count
        #expect(object["accepted"] as? Int == valid)
        #expect(object["rejected"] as? Int == 400 - valid)
        let byCode = object["by_code"] as! [String: Int]
        for label in Set(labels) where label != "valid" {
            let code = String(label.split(separator: ":")[0])
            #expect((byCode[code] ?? 0) >= labels.filter { $0 == label }.count, "\(label)")
        }

        let verdicts = try CommandRunner.run(["validate", "--verdicts", file.path])
        #expect(verdicts.status == 1)
        let lines = verdicts.stdout.split(separator: "\n")
        #expect(lines.count == 400)
        for (index, line) in lines.enumerated() {
            let verdict = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            #expect(verdict["line"] as? Int == index + 1)
            #expect((verdict["status"] as? String == "accepted") == (labels[index] == "valid"), "line \(index + 1): \(labels[index])")
            for error in verdict["errors"] as! [[String: Any]] {
                #expect(Set(error.keys) == ["code", "path"])
            }
        }
    }

    @Test("blank lines are skipped but still counted in line numbers")
    func blankLines() throws {
        let valid = EventBuilder("app_open").json
        let result = try CommandRunner.run(["validate", "--verdicts", "-"], stdin: Data("\n\(valid)\n\n[]\n".utf8))
        #expect(result.stdout.split(separator: "\n").map(String.init) == [
            "{\"line\":2,\"status\":\"accepted\",\"errors\":[]}",
            "{\"line\":4,\"status\":\"rejected\",\"errors\":[{\"code\":\"not_an_object\",\"path\":\"\"}]}",
        ])
    }

    @Test("a file (mapped) and standard input (read in a reused buffer) give the same verdicts: CRLF, a last line without newline, a line longer than the buffer")
    func fileAndStandardInputAgree() throws {
        let valid = EventBuilder("app_open").json
        // 5 MiB of JSON whitespace inside one object: longer than the 4 MiB read buffer, so
        // standard input must grow it; the line is still one event, refused whole as too large.
        let long = "{" + String(repeating: " ", count: 5 << 20) + String(valid.dropFirst())
        let text = "\(valid)\r\n\n\(long)\n[]\r\n\(valid)"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString).ndjson")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try CommandRunner.run(["validate", "--verdicts", file.path])
        let fromStandardInput = try CommandRunner.run(["validate", "--verdicts", "-"], stdin: Data(text.utf8))
        let expected = [
            "{\"line\":1,\"status\":\"accepted\",\"errors\":[]}",
            "{\"line\":3,\"status\":\"rejected\",\"errors\":[{\"code\":\"too_large\",\"path\":\"\"}]}",
            "{\"line\":4,\"status\":\"rejected\",\"errors\":[{\"code\":\"not_an_object\",\"path\":\"\"}]}",
            "{\"line\":5,\"status\":\"accepted\",\"errors\":[]}",
        ]
        #expect(fromFile.stdout.split(separator: "\n").map(String.init) == expected)
        #expect(fromStandardInput.stdout.split(separator: "\n").map(String.init) == expected)
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString).ndjson")
        try Data().write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(try CommandRunner.run(["validate", empty.path]).stdout.contains("\"accepted\":0"))
    }

    @Test("usage errors exit 2")
    func usageErrors() throws {
        #expect(try CommandRunner.run(["validate", "--no-such-flag"]).status == 2)
        #expect(try CommandRunner.run(["validate", "/nonexistent/events.ndjson"]).status == 2)
        #expect(try CommandRunner.run(["corpus", "--count", "0", "--out", "/tmp/x"]).status == 2)
    }

    @Test("nothing printed contains a rejected value")
    func outputNeverEchoesValues() throws {
        let sentinel = "SENTINEL4c1"
        var events: [String] = []
        for key in ["user_state", "locale", "event_name", "session_id"] {
            var event = EventBuilder("app_open")
            event[key] = "\(sentinel)@example.com"
            events.append(event.json)
        }
        var property = EventBuilder("app_open")
        property.setProperty("\(sentinel) key", "\(sentinel)")
        events.append(property.json)
        events.append("{\"\(sentinel)\": [\"\(sentinel)\"")
        let input = Data(events.joined(separator: "\n").utf8)
        for arguments in [["validate", "-"], ["validate", "--verdicts", "-"]] {
            let result = try CommandRunner.run(arguments, stdin: input)
            #expect(result.status == 1)
            #expect(!result.stdout.contains(sentinel) && !result.stderr.contains(sentinel))
            #expect(!result.stdout.contains("example.com"))
        }
    }

    @Test("a broken catalog stops validation with path:line problems")
    func brokenCatalog() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let catalog = directory.appendingPathComponent("catalog")
        try FileManager.default.copyItem(atPath: RepositoryCatalog.directory, toPath: catalog.path)
        let properties = catalog.appendingPathComponent("properties.yaml")
        try (try String(contentsOf: properties, encoding: .utf8)).replacingOccurrences(of: "  demo_id: {type: string, format: slug,", with: "  demo_id: {type: string,")
            .write(to: properties, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["validate", "--catalog", catalog.path, "-"], stdin: Data())
        #expect(result.status == 1)
        #expect(result.stderr.contains("properties.yaml:"))
        let lint = try CommandRunner.run(["catalog", "lint", "--catalog", catalog.path])
        #expect(lint.status == 1)
        #expect(lint.stdout.contains("\(catalog.path)/properties.yaml:") && lint.stdout.contains(": error: string property demo_id"))
    }
}

@Suite struct CatalogCommandTests {
    @Test("catalog lint passes on the shipped catalog")
    func lint() throws {
        let result = try CommandRunner.run(["catalog", "lint", "--catalog", RepositoryCatalog.directory])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.isEmpty)
    }

    @Test("export-jsonschema writes one schema per enabled event plus catalog.schema.json")
    func exportJSONSchema() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CommandRunner.run(["catalog", "export-jsonschema", "--catalog", RepositoryCatalog.directory, "--out", directory.path])
        #expect(result.status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count == RepositoryCatalog.catalog.events.filter(\.isEnabled).count + 1)
        #expect(files.contains("catalog.schema.json"))
    }

    @Test("corpus is deterministic for a seed")
    func corpusDeterminism() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["a", "b"] {
            _ = try CommandRunner.run(["corpus", "--catalog", RepositoryCatalog.directory, "--count", "2000", "--seed", "9", "--out", directory.appendingPathComponent(name).path])
        }
        let a = try Data(contentsOf: directory.appendingPathComponent("a"))
        #expect(a == (try Data(contentsOf: directory.appendingPathComponent("b"))))
        #expect(a.count > 2000 * 300)
    }
}

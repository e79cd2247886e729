import Foundation
import HandzTestSupport
import Testing

/// Long commands show progress on standard error (issue 15 §5): plain lines when it is not a
/// terminal (as here), the result alone on standard output, counts only — never a value.
@Suite(.serialized) struct ProgressOutputTests {
    @Test("import and dashboard render report progress on standard error, counts only; standard output keeps the result")
    func progressLines() throws {
        let files = try SimulatedFiles("handz-progress")
        defer { files.remove() }
        let (directory, events, db) = (files.directory, files.events, files.db)
        let imported = try CommandRunner.run(["import", "--db", db, events])
        #expect(imported.status == 0, "\(imported.stderr)")
        // A report comes when a commit (4 batches of 1,000 lines) is answered, which is awaited
        // once the next 4 batches are validated (they overlap it), and after the last one, at
        // most every 10 s; then the seal into the column store (issue 33), counted in events.
        // This file's 4,184 lines make one commit in flight until the end: the first report has
        // every line.
        let importLines = imported.stderr.split(separator: "\n")
        let lines = try #require((try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any])?["lines"] as? Int)
        #expect(lines > 4_000 && lines < 8_000)
        #expect(importLines.first?.hasPrefix("importing: \(lines) lines (100%), ") == true, "\(imported.stderr)")
        #expect(importLines.allSatisfy {
            $0.wholeMatch(of: /importing: \d+ lines \(\d+%\), \d+ accepted, \d+ rejected, \d+ lines\/s/) != nil
                || $0.wholeMatch(of: /sealing into column chunks: \d+ events/) != nil
        }, "\(imported.stderr)")
        #expect(importLines.last?.hasPrefix("sealing into column chunks: ") == true, "\(imported.stderr)")
        #expect((try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any])?["lines"] is Int)

        let rendered = try CommandRunner.run(["dashboard", "render", "--db", db, "--out", directory.appendingPathComponent("report").path])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let renderLines = rendered.stderr.split(separator: "\n")
        #expect(renderLines.first?.hasPrefix("rendering: 1/38 panels") == true, "\(rendered.stderr)")
        #expect(renderLines.allSatisfy { $0.wholeMatch(of: /rendering: \d+\/\d+ panels, \d+ s/) != nil })
        #expect((try JSONSerialization.jsonObject(with: Data(rendered.stdout.utf8)) as? [String: Any])?["panels"] as? Int == 38)
    }
}

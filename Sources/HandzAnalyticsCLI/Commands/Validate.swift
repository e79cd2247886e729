import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzSynthetic

/// `handz-analytics validate [--catalog DIR] [--verdicts] [FILE|-]`: NDJSON in, one event per
/// line; prints a JSON summary, or one verdict per line. Exit status 0 when every event is
/// accepted, 1 when any is rejected, 2 on usage errors.
///
/// Output never contains an event value: only counts, error codes and JSON-pointer paths (with
/// unreviewed keys redacted).
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Validate NDJSON events against the catalog.",
        discussion: """
        Prints {"accepted": N, "rejected": M, "by_code": {"<code>": events}} — by_code counts \
        rejected events per error code (an event with two codes counts once under each). \
        With --verdicts, prints one line per input line instead: \
        {"line": n, "status": "accepted"|"rejected", "errors": [{"code": "...", "path": "/..."}]}. \
        Blank lines are skipped.
        """
    )

    @OptionGroup var options: CatalogOptions

    @Flag(help: "Print one JSON verdict per input line instead of the summary.")
    var verdicts = false

    @Argument(help: "NDJSON file, or - for standard input.")
    var input: String = "-"

    func validate() throws {
        if input != "-" && !FileManager.default.isReadableFile(atPath: input) {
            throw ValidationError("cannot read \(input)")
        }
    }

    func run() throws {
        let catalog = CompiledCatalog(try options.load())
        var validator = EventValidator(catalog: catalog)
        var accepted = 0
        var rejected = 0
        var byCode: [ValidationErrorCode: Int] = [:]
        var output = OutputBuffer()
        try LineReader(path: input).forEachLine { number, line in
            if LineReader.isBlank(line) { return }
            let verdict = validator.validate(line)
            if verdict.isAccepted {
                accepted += 1
            } else {
                rejected += 1
                for code in verdict.codes { byCode[code, default: 0] += 1 }
            }
            if verdicts { output.write(Self.verdictLine(number, verdict)) }
        }
        if !verdicts {
            var json = JSONText()
            json.beginObject()
            json.field("accepted", accepted)
            json.field("rejected", rejected)
            json.key("by_code")
            json.beginObject()
            for code in byCode.keys.sorted() { json.field(code.rawValue, byCode[code]!) }
            json.endObject()
            json.endObject()
            output.write(json.text)
        }
        output.flush()
        if rejected > 0 { throw ExitCode.failure }
    }

    static func verdictLine(_ number: Int, _ verdict: Verdict) -> String {
        var json = JSONText()
        json.beginObject()
        json.field("line", number)
        json.field("status", verdict.isAccepted ? "accepted" : "rejected")
        json.key("errors")
        json.beginArray()
        for issue in verdict.issues {
            json.beginObject()
            json.field("code", issue.code.rawValue)
            json.field("path", issue.path)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.text
    }
}

/// Buffered standard output: one write per 64 KiB instead of one per line.
struct OutputBuffer {
    private var buffer: [UInt8] = []

    mutating func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(1, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

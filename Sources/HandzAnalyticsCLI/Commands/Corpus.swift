import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzSynthetic

/// `handz-analytics corpus`: a deterministic synthetic NDJSON corpus for benchmarks and tests —
/// catalog-valid events, about 30% broken across every error code.
struct Corpus: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate a synthetic NDJSON event corpus (valid and invalid events across all error codes)."
    )

    @OptionGroup var options: CatalogOptions

    @Option(help: "Number of events.")
    var count = 1_000_000

    @Option(help: "Random seed: the same seed gives the same corpus.")
    var seed: UInt64 = 1

    @Option(help: "Share of invalid events (0...1).")
    var invalidFraction = 0.3

    @Option(help: "Output NDJSON file.")
    var out: String

    @Option(help: "Also write one label per line (valid, or the mutation applied) to this file.")
    var labels: String?

    func validate() throws {
        guard count > 0 else { throw ValidationError("--count must be positive") }
        guard (0...1).contains(invalidFraction) else { throw ValidationError("--invalid-fraction must be within 0...1") }
    }

    func run() throws {
        var generator = CorpusGenerator(catalog: try options.load(), seed: seed, invalidFraction: invalidFraction)
        guard FileManager.default.createFile(atPath: out, contents: nil), let file = FileHandle(forWritingAtPath: out) else {
            throw CleanFailure("cannot write \(out)")
        }
        var labelFile: FileHandle?
        if let labels {
            guard FileManager.default.createFile(atPath: labels, contents: nil) else { throw CleanFailure("cannot write \(labels)") }
            labelFile = FileHandle(forWritingAtPath: labels)
        }
        var buffer: [UInt8] = []
        var labelBuffer: [UInt8] = []
        var bytes = 0
        for _ in 0..<count {
            let (line, label) = generator.next()
            buffer.append(contentsOf: line)
            buffer.append(0x0A)
            bytes += line.count + 1
            labelBuffer.append(contentsOf: label.utf8)
            labelBuffer.append(0x0A)
            if buffer.count > 1 << 22 {
                file.write(Data(buffer)); buffer.removeAll(keepingCapacity: true)
                labelFile?.write(Data(labelBuffer)); labelBuffer.removeAll(keepingCapacity: true)
            }
        }
        file.write(Data(buffer))
        labelFile?.write(Data(labelBuffer))
        try file.close()
        try labelFile?.close()
        FileHandle.standardError.write(Data("wrote \(count) events, \(bytes) bytes (mean \(bytes / count) bytes/event) to \(out)\n".utf8))
    }
}

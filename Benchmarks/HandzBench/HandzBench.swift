// handz-bench: throughput benchmarks for the pipeline's hot paths. Run in release mode:
//   swift run -c release handz-bench validate FILE.ndjson [--passes 5]
//   swift run -c release handz-bench store [--rows N] [--concurrency C]
//   swift run -c release handz-bench lint [--files N] [--seed S] [--passes P]
//   swift run -c release handz-bench qa FILE.ndjson [--passes 3]
//   swift run -c release handz-bench client-idle [--seconds 60]
// Reported figures are recorded in BENCHMARKS.md together with the command that produced them.
import Foundation
import HandzAnalyticsCore
import HandzCatalog

@main
enum HandzBench {
    static func main() async throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else { usage() }
        arguments.removeFirst()
        switch command {
        case "validate": try ValidateBenchmark(arguments: arguments).run()
        case "store": try await StoreBenchmark(arguments: arguments).run()
        case "client": try ClientBenchmark(arguments: arguments).run()
        case "client-idle": try ClientIdleBenchmark(arguments: arguments).run()
        case "lint": try LintBenchmark(arguments: arguments).run()
        case "qa": try QABenchmark(arguments: arguments).run()
        default: usage()
        }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("""
            usage: handz-bench validate FILE.ndjson [--passes N] [--catalog DIR]
                   handz-bench store [--rows N] [--concurrency C] [--db PATH] [--synchronous full|normal]
                   handz-bench client [--events N] [--endpoint URL --keys FILE]
                   handz-bench client-idle [--seconds S]
                   handz-bench lint [--files N] [--seed S] [--passes P] [--dir DIR] [--catalog DIR]
                   handz-bench qa FILE.ndjson [--passes N] [--catalog DIR]

            """.utf8))
        exit(2)
    }
}

/// Validates every line of an NDJSON corpus held in memory, on one thread, several passes;
/// reports the best pass (the least disturbed by the rest of the machine) and the median.
struct ValidateBenchmark {
    let options: CorpusArguments

    init(arguments: [String]) throws { options = CorpusArguments(arguments, passes: 5) }

    func run() throws {
        let passes = options.passes
        let catalog = CompiledCatalog(try CatalogLoader.loadChecked(directory: options.catalogDirectory))
        let corpus = try NDJSONCorpus(path: options.file)
        let (bytes, lines) = (corpus.bytes, corpus.lines)
        var validator = EventValidator(catalog: catalog)
        var timings: [Double] = []
        var accepted = 0
        for _ in 0..<passes {
            accepted = 0
            let begin = DispatchTime.now().uptimeNanoseconds
            bytes.withUnsafeBytes { buffer in
                for range in lines {
                    let verdict = validator.validate(UnsafeRawBufferPointer(rebasing: buffer[range]))
                    if verdict.isAccepted { accepted += 1 }
                }
            }
            timings.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9)
        }
        timings.sort()
        let best = timings[0]
        let median = timings[timings.count / 2]
        let eventsPerSecond = Double(lines.count) / best
        print(String(format: "handz validator: %d events (%d accepted, %d rejected), %.1f MB, %d passes on 1 thread", lines.count, accepted, lines.count - accepted, Double(bytes.count) / 1e6, passes))
        print(String(format: "handz validator: best %.3f s = %.0f events/s (%.0f MB/s); median %.3f s = %.0f events/s",
                     best, eventsPerSecond, Double(bytes.count) / best / 1e6, median, Double(lines.count) / median))
    }
}

// handz-bench: throughput benchmarks for the pipeline's hot paths. Run in release mode:
//   swift run -c release handz-bench validate FILE.ndjson [--passes 5] [--versions N]
//   swift run -c release handz-bench store [--rows N] [--concurrency C]
//   swift run -c release handz-bench lint [--files N] [--seed S] [--passes P]
//   swift run -c release handz-bench qa FILE.ndjson [--passes 3]
//   swift run -c release handz-bench client-idle [--seconds 60]
// Reported figures are recorded in BENCHMARKS.md together with the command that produced them.
import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzIngest

@main
enum HandzBench {
    static func main() async throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else { usage() }
        arguments.removeFirst()
        switch command {
        case "validate": try ValidateBenchmark(arguments: arguments).run()
        case "store": try await StoreBenchmark(arguments: arguments).run()
        case "retention": try await RetentionBenchmark(arguments: arguments).run()
        case "client": try ClientBenchmark(arguments: arguments).run()
        case "client-idle": try ClientIdleBenchmark(arguments: arguments).run()
        case "lint": try LintBenchmark(arguments: arguments).run()
        case "qa": try QABenchmark(arguments: arguments).run()
        default: usage()
        }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("""
            usage: handz-bench validate FILE.ndjson [--passes N] [--catalog DIR] [--versions N [--spread K]]
                   handz-bench store [--rows N] [--concurrency C] [--db PATH] [--synchronous full|normal] [--engine sqlite|segments] [--seal-ms MS]
                   handz-bench retention [--events N] [--days D] [--rate EVENTS_PER_S] [--seconds S] [--db PATH] [--reuse]
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
        if options.versions > 0 { return try runBatched() }
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

extension ValidateBenchmark {
    /// The server's path (docs/catalog-releases.md): batches of 100 events, each naming one of
    /// `--versions` N loaded catalog versions in turn; the validator comes from that version's
    /// pool in ``LiveCatalog`` and goes back after the batch. The N catalogs are the same rules
    /// under N versions, so every pass accepts the same events and only the selection, the pools
    /// and N sets of compiled tables competing for the caches differ from `--versions 1`.
    func runBatched() throws {
        let current = try CatalogLoader.loadChecked(directory: options.catalogDirectory)
        let releases = (0..<(options.versions - 1)).map { index -> Catalog in
            var release = current
            release.version = "0.\(index).0"
            return release
        }
        let live = LiveCatalog(current, releases: releases)
        let versions = Array((releases.map(\.version) + [current.version]).suffix(max(1, options.spread ?? options.versions)))
        let corpus = try NDJSONCorpus(path: options.file)
        let (bytes, lines) = (corpus.bytes, corpus.lines)
        let batches = stride(from: 0, to: lines.count, by: 100).map { $0..<min($0 + 100, lines.count) }
        var timings: [Double] = []
        var accepted = 0
        for _ in 0..<options.passes {
            accepted = 0
            let begin = DispatchTime.now().uptimeNanoseconds
            bytes.withUnsafeBytes { buffer in
                for (number, batch) in batches.enumerated() {
                    guard case .success(var validator) = live.checkOutValidator(forCatalogVersion: versions[number % versions.count]) else { continue }
                    for range in lines[batch] where validator.validate(UnsafeRawBufferPointer(rebasing: buffer[range])).isAccepted { accepted += 1 }
                    live.checkIn(validator)
                }
            }
            timings.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9)
        }
        timings.sort()
        print(String(format: "handz validator, %d catalog version(s) loaded, batches of 100 naming %d of them in turn: %d events (%d accepted), %d passes on 1 thread", options.versions, versions.count, lines.count, accepted, options.passes))
        print(String(format: "best %.3f s = %.0f events/s; median %.3f s = %.0f events/s", timings[0], Double(lines.count) / timings[0], timings[timings.count / 2], Double(lines.count) / timings[timings.count / 2]))
    }
}

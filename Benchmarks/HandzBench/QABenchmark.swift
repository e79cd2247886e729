import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzQA

/// `handz-bench qa FILE.ndjson [--passes N] [--catalog DIR]`: the QA rules (CH33 §8.2, §13) over a
/// captured stream held in memory, on one thread — reading the lines into the event log, then
/// ordering and evaluating every rule. Reports the best pass and the median, per phase.
struct QABenchmark {
    let options: CorpusArguments

    init(arguments: [String]) throws { options = CorpusArguments(arguments, passes: 3) }

    func run() throws {
        let passes = options.passes
        let loaded = try CatalogLoader.load(directory: options.catalogDirectory)
        let program = try QAProgram(ruleSet: loaded.qaRules, catalog: loaded.catalog)
        let corpus = try NDJSONCorpus(path: options.file)
        let (bytes, lines) = (corpus.bytes, corpus.lines)
        var reads: [Double] = [], evaluations: [Double] = []
        var report: QAReport?
        for _ in 0..<passes {
            let begin = DispatchTime.now().uptimeNanoseconds
            var log = program.makeLog()
            log.reserve(lines.count)
            var unreadable = 0
            bytes.withUnsafeBytes { buffer in
                for range in lines {
                    do { try log.append(line: UnsafeRawBufferPointer(rebasing: buffer[range])) } catch { unreadable += 1 }
                }
            }
            let read = DispatchTime.now().uptimeNanoseconds
            report = program.run(log)
            let done = DispatchTime.now().uptimeNanoseconds
            reads.append(Double(read - begin) / 1e9)
            evaluations.append(Double(done - read) / 1e9)
            precondition(unreadable == 0, "unreadable lines in the benchmark input")
        }
        let totals = zip(reads, evaluations).map { $0 + $1 }.sorted()
        reads.sort()
        evaluations.sort()
        let failed = report?.failedRules.count ?? 0
        print(String(format: "handz qa: %d lines (%d events after retries), %.1f MB, %d rules (%d failed), %d passes on 1 thread",
                     lines.count, report?.events ?? 0, Double(bytes.count) / 1e6, program.ruleSet.rules.count, failed, passes))
        print(String(format: "handz qa: read best %.3f s (median %.3f); rules best %.3f s (median %.3f); total best %.3f s = %.0f events/s",
                     reads[0], reads[reads.count / 2], evaluations[0], evaluations[evaluations.count / 2], totals[0], Double(lines.count) / totals[0]))
    }
}

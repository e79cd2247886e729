import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzQA
import HandzSynthetic
import HandzTestSupport

/// The shipped QA rules, compiled once, and helpers to run them over synthetic streams.
enum QAFixture {
    static let ruleSet: QARuleSet = {
        let loaded = try! CatalogLoader.load(directory: RepositoryCatalog.directory)
        precondition(loaded.loadProblems.isEmpty, "catalog/qa has problems: \(loaded.loadProblems)")
        return loaded.qaRules
    }()

    static let program = try! QAProgram(ruleSet: ruleSet, catalog: RepositoryCatalog.catalog)

    /// A simulated stream (large enough that every funnel is computable and every fault has a
    /// place), with the faults it holds.
    static func simulate(faults: Set<SimulatedFault> = [], installs: Int = 300, days: Int = 42, seed: UInt64 = 7) -> (lines: [String], injected: [InjectedFault]) {
        var simulator = JourneySimulator(catalog: RepositoryCatalog.catalog, options: .init(installs: installs, days: days, seed: seed), faults: faults)
        var lines: [String] = []
        simulator.run { lines.append($0) }
        return (lines, simulator.injectedFaults)
    }

    static let clean = simulate().lines

    /// Runs the shipped rules over NDJSON lines (unreadable lines reported by 1-based number).
    static func run(_ lines: [String], program: QAProgram = program) -> QAReport {
        var log = program.makeLog()
        var problems: [QAInputProblem] = []
        for (index, line) in lines.enumerated() {
            var line = line
            line.withUTF8 { bytes in
                do throws(QAInputError) {
                    try log.append(line: UnsafeRawBufferPointer(bytes))
                } catch {
                    problems.append(QAInputProblem(line: index + 1, reason: error.description))
                }
            }
        }
        return program.run(log, inputProblems: problems)
    }

    /// Hand-made events for one install: `(name, session, seconds, properties)`, in time order,
    /// with monotonic UUIDv7 ids.
    static func events(_ specs: [(String, String, Int64, [(String, PropertyValue)])], install: String = "4b1c8d5e-0f2a-4c3b-9d8e-7f6a5b4c3d2e",
                       optIn: [Bool]? = nil) -> [String] {
        let factory = EventFactory(catalog: RepositoryCatalog.catalog)
        var random = SeededRandom(seed: 11)
        return specs.enumerated().map { index, spec in
            let (name, session, seconds, properties) = spec
            let ms = 1_772_366_400_000 + seconds * 1000
            let context = EventContext(installID: install, sessionID: session, userID: nil, userState: "guest", timeMilliseconds: ms)
            let id = UUIDv7.format(high: UInt64(ms) << 16 | 0x7000 | UInt64(index), low: 0x8000_0000_0000_0000 | random.next() >> 2)
            return factory.json(name: name, eventID: id, context: context, properties: properties, optIn: optIn?[index] ?? true)
        }
    }

    /// The event_id of a line.
    static func id(_ line: String) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event_id"] as? String
    }

    static let sessionA = "1d2e3f4a-5b6c-4d7e-8f90-a1b2c3d4e5f6"
    static let sessionB = "2e3f4a5b-6c7d-4e8f-9a01-b2c3d4e5f6a7"
}

extension QAReport {
    func result(_ id: String) -> QARuleResult { results.first { $0.rule.id == id }! }
    var failedIDs: [String] { failedRules.map(\.rule.id) }
}

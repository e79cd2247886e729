import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzColumnStore
import HandzQA
import HandzSQLite
import HandzStore

/// `handz-analytics qa --db PATH | FILE.ndjson [--rules DIR] [--format text|json|junit]`: the
/// CH33 §8.2 checklist and §13 acceptance tests as sequence rules over a captured stream.
struct QA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qa",
        abstract: "Check a captured event stream against the QA rules (CH33 §8.2 checklist, §13 acceptance tests); exit 1 on any failure."
    )

    @OptionGroup var catalogOptions: CatalogOptions

    @Option(help: "An embedded store (SQLite) to check, e.g. the database of a local `serve` a test device sent to.")
    var db: String?

    @Argument(help: "An NDJSON capture to check (- for standard input), e.g. the output of `simulate`.")
    var file: String?

    @Option(help: "A directory of rule files (*.yaml). Default: the catalog's qa/.")
    var rules: String?

    @Option(help: "text, json or junit.")
    var format: QAReport.Format = .text

    @Option(help: "Violations shown per rule (counts are always complete).")
    var maxViolations = 100

    @Option(help: "With --db: auto reads the events from the column store when it is current, else from SQLite; columns insists on it; sqlite never reads it. Same report.")
    var via: AnalysisEngine = .auto

    func validate() throws {
        guard (db == nil) != (file == nil) else { throw ValidationError("give either --db PATH or an NDJSON file") }
        if let db { try requireExistingDatabase(db) }
        guard maxViolations > 0 else { throw ValidationError("--max-violations must be positive") }
    }

    func run() throws {
        let catalog = try catalogOptions.load()
        let ruleSet = try loadRules(catalog)
        let program: QAProgram
        do {
            program = try QAProgram(ruleSet: ruleSet, catalog: catalog)
        } catch {
            throw ValidationError("\(error)")
        }
        var log = program.makeLog()
        var problems: [QAInputProblem] = []
        if let db {
            try QAStoreReader.read(path: db, via: via, into: &log)
        } else if let file {
            try LineReader(path: file).forEachLine { number, line in
                guard !LineReader.isBlank(line) else { return }
                do {
                    try log.append(line: line)
                } catch {
                    problems.append(QAInputProblem(line: number, reason: (error as? QAInputError)?.description ?? "unreadable"))
                }
            }
        }
        let report = program.run(log, inputProblems: problems)
        print(report.rendered(format, limit: maxViolations))
        if report.failed { throw ExitCode.failure }
    }

    /// The catalog's own rules (already linted with it), or `--rules DIR` linted now.
    func loadRules(_ catalog: Catalog) throws -> QARuleSet {
        let directory = try catalogOptions.directory()
        guard let rules else { return try CatalogLoader.load(directory: directory).qaRules }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: rules, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--rules must be a directory of rule files")
        }
        let prefix = rules.hasSuffix("/") ? rules : rules + "/"
        let (ruleSet, problems) = QARuleLoader.read(directory: rules, prefix: prefix, catalog: catalog)
        let errors = problems.filter { $0.severity == .error }
        if !errors.isEmpty {
            FileHandle.standardError.write(Data((errors.map(\.description).joined(separator: "\n") + "\n").utf8))
            throw ExitCode(2)
        }
        guard !ruleSet.rules.isEmpty else { throw ValidationError("no rules in \(rules)") }
        return ruleSet
    }
}

extension QAReport.Format: ExpressibleByArgument {}

/// Reads the embedded store for `qa`: accepted events in full (ids, times, the properties the
/// rules read) and the quarantine's names and codes (it keeps no identifiers or values). Events
/// come from the column store when it is current (issue 33 §2), else from the log, read-only;
/// the quarantine from the log.
enum QAStoreReader {
    static func read(path: String, via engine: AnalysisEngine = .auto, into log: inout QAEventLog) throws {
        try engine.refuseTheLogOfSegmentStore(path)
        if engine != .sqlite, let store = try ColumnSealing.currentStore(db: path) {
            try StoredEventRows(store: store).forEach(properties: log.propertiesRead) { row in
                try row.propertiesJSON.withUnsafeBytes { json in
                    try log.appendStored(eventID: (row.eventID.high, row.eventID.low), name: row.name, timeMs: row.timeMs, installID: row.installID,
                                         sessionID: row.sessionID, userState: row.userState, propertiesJSON: json)
                }
            }
            try readQuarantine(try SQLiteDatabase(path: path, readOnly: true), into: &log)
            return
        }
        try engine.requireColumns(path)
        let database = try SQLiteEventStore.openForReading(path: path)
        // One read transaction: events and quarantine from the same snapshot while `serve` writes.
        try database.transaction("DEFERRED") {
            try read(database, into: &log)
            try readQuarantine(database, into: &log)
        }
    }

    private static func read(_ database: SQLiteDatabase, into log: inout QAEventLog) throws {
        let events = try database.prepare("SELECT event_id, event_name, event_time_ms, install_id, session_id, user_state, properties FROM events")
        while try events.step() {
            let id = events.blob(0)
            guard id.count == 16 else { continue }
            let high = id[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = id[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            var properties = events.text(6) ?? "{}"
            try properties.withUTF8 { bytes in
                try log.appendStored(eventID: (high, low), name: events.text(1) ?? "", timeMs: events.int64(2), installID: events.text(3) ?? "",
                                     sessionID: events.text(4) ?? "", userState: events.text(5) ?? "", propertiesJSON: UnsafeRawBufferPointer(bytes))
            }
        }
    }

    private static func readQuarantine(_ database: SQLiteDatabase, into log: inout QAEventLog) throws {
        let rejected = try database.prepare("SELECT event_name, received_time_ms, error_codes FROM rejected_events ORDER BY id")
        while try rejected.step() {
            log.appendQuarantined(QAQuarantinedEvent(eventName: rejected.text(0), receivedTimeMs: rejected.int64(1),
                                                     codes: (rejected.text(2) ?? "").split(separator: ",").map(String.init)))
        }
    }
}

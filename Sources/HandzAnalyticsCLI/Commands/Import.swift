import ArgumentParser
import Foundation
import HandzIngest
import HandzStore
import HandzSynthetic

/// `handz-analytics import --db PATH FILE.ndjson`.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load NDJSON events into the store through the ingestion endpoint's validation and store path (rejected lines are reported by code, never stored)."
    )

    @OptionGroup var catalogOptions: CatalogOptions

    @Option(help: "SQLite database file (created when missing).")
    var db = "handz-events.sqlite"

    @Argument(help: "NDJSON file, one event per line (- for standard input).")
    var file: String

    func run() async throws {
        let catalog = try catalogOptions.load()
        let handle: FileHandle
        if file == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: file) else { throw CleanFailure("cannot read \(file)") }
            handle = opened
        }
        // A bulk load: a crash loses at most the last commits, and re-running the import is
        // idempotent (event_id dedupe), so commits need not be fsynced one by one.
        var configuration = StoreConfiguration()
        configuration.synchronous = .normal
        let store = try SQLiteEventStore(path: db, configuration: configuration)
        let summary: EventImporter.Summary
        let progress = ProgressLine()
        let totalBytes = file == "-" ? nil : (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? nil
        let started = Date()
        do {
            summary = try await EventImporter(store: store, catalog: catalog).importLines(from: handle) { sofar, bytes in
                let share = totalBytes.map { $0 > 0 ? String(format: " (%.0f%%)", 100 * Double(bytes) / Double($0)) : "" } ?? ""
                let rate = Double(sofar.lines) / max(0.001, Date().timeIntervalSince(started))
                progress.update("importing: \(sofar.lines) lines\(share), \(sofar.accepted) accepted, \(sofar.rejected) rejected, \(Int(rate)) lines/s")
            }
        } catch {
            progress.finish()
            await store.close()
            throw error
        }
        progress.finish()
        await store.close()
        // Sealed into the column store the analysis commands read (issue 33).
        try ColumnSealing.seal(db: db)
        var json = JSONText()
        json.beginObject()
        json.field("lines", summary.lines)
        json.field("accepted", summary.accepted)
        json.field("duplicates", summary.duplicates)
        json.field("rejected", summary.rejected)
        json.counts("rejected_by_code", summary.rejectedByCode)
        json.endObject()
        print(json.text)
        if summary.rejected > 0 { throw ExitCode(1) }
    }
}

import ArgumentParser
import Foundation
import HandzColumnStore
import HandzIngest
import HandzServer
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

    @Option(help: "A new store's write path: segments (the segment log, the default) or sqlite (the SQLite log of versions 1.0-1.2). An existing store keeps its own.")
    var engine: String?

    @Option(name: .customLong("max-unsealed"), help: "Segment stores: imported events held unsealed at most (their ids stay in memory); past it the import seals what it wrote and goes on.")
    var maxUnsealed = SegmentWriter.Limits().maxPendingIDs

    func validate() throws {
        if let engine, !["sqlite", "segments"].contains(engine) { throw ValidationError("--engine must be sqlite or segments") }
        guard maxUnsealed >= 1 else { throw ValidationError("--max-unsealed must be at least 1") }
        if let engine, FileManager.default.fileExists(atPath: db), (engine == "segments") != isSegmentStore(db) {
            throw ValidationError("\(db) is a store of the \(isSegmentStore(db) ? "segments" : "sqlite") engine; --engine cannot change it")
        }
    }

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
        let segments = (engine.flatMap(EmbeddedEngine.init(rawValue:)) ?? defaultEngine(forDatabase: db)) == .segments
        var limits = SegmentWriter.Limits()
        limits.maxPendingIDs = maxUnsealed
        let store: any EventStore = segments ? try SegmentEventStore(path: db, configuration: configuration, limits: limits) : try SQLiteEventStore(path: db, configuration: configuration)
        let summary: EventImporter.Summary
        let progress = ProgressLine()
        let totalBytes = file == "-" ? nil : (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? nil
        let started = Date()
        var importer = EventImporter(store: store, catalog: catalog)
        if let segmentStore = store as? SegmentEventStore {
            // Past `--max-unsealed` events (8 M) the segment writer refuses more (its bound on the
            // ids held in memory): seal what is written, then go on — one seal more per 8 M
            // events. Before, an import of more than 8 M events failed with "store overloaded".
            importer.makeRoom = { () async throws(StoreError) in
                do {
                    _ = try segmentStore.columns.withWriter(lockWait: .seconds(600)) { writer, _ in
                        try segmentStore.seal(into: writer, maxPartsPerDay: 1, rowsPerPart: 1_000_000)
                    }
                } catch {
                    throw StoreError.unavailable("cannot seal the imported events to make room")
                }
            }
        }
        do {
            summary = try await importer.importLines(from: handle) { sofar, bytes in
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
        // Sealed into the column store the analysis commands read (issue 33): the segments into
        // one chunk per event and day, as a seal of the SQLite log gives. One seal at the end, not
        // seals along the import: each seal creates a file per event and day it touches, and
        // creating files was already a sixth of the import's time (BENCHMARKS.md, "import").
        if let store = store as? SegmentEventStore {
            // A line of its own, whenever the last import line was shown (as the SQLite log's seal).
            let sealing = ProgressLine()
            sealing.update("sealing into column chunks: \(summary.accepted) events")
            _ = try store.columns.withWriter(lockWait: .seconds(600)) { writer, _ in try store.seal(into: writer, maxPartsPerDay: 1, rowsPerPart: 1_000_000) }
            sealing.finish()
            await store.close()
        } else {
            await store.close()
            try ColumnSealing.seal(db: db)
        }
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

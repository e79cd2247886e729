import ArgumentParser
import Foundation
import HandzColumnStore
import HandzAnalyticsCore
import HandzServer
import HandzStore
import HandzSynthetic

/// `--db PATH`, shared by the commands that write the embedded store (`stats`, `purge`, …).
/// Two other option groups name `--db` because their commands take more with it:
/// `AnalysisStoreOptions` (read-only analysis, with `--format`) and `LifecycleStoreOptions`
/// (SQLite or PostgreSQL, and the lake). All three refuse a missing file the same way
/// (`requireExistingDatabase`).
struct StoreOptions: ParsableArguments {
    @Option(help: "SQLite database file.")
    var db = "handz-events.sqlite"

    func open(configuration: StoreConfiguration = StoreConfiguration()) throws -> SQLiteEventStore {
        try requireExistingDatabase(db)
        return try SQLiteEventStore(path: db, configuration: configuration)
    }
}

/// `handz-analytics stats --db PATH [--from DATE] [--to DATE]`.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Accepted, duplicate and rejected events (by code) over a receive-time range.")

    @OptionGroup var store: StoreOptions

    @Option(help: "From (inclusive), UTC date or ISO-8601 time.")
    var from: String?

    @Option(help: "To (exclusive), UTC date or ISO-8601 time.")
    var to: String?

    func validate() throws {
        if let from, TimestampFormat.milliseconds(from) == nil { throw ValidationError("--from must be a UTC date (2026-03-01) or ISO-8601 time") }
        if let to, TimestampFormat.milliseconds(to) == nil { throw ValidationError("--to must be a UTC date (2026-03-01) or ISO-8601 time") }
    }

    func run() throws {
        let opened = try store.open()
        defer { opened.closeNow() }
        let (fromMs, toMs) = (from.flatMap(TimestampFormat.milliseconds) ?? .min, to.flatMap(TimestampFormat.milliseconds) ?? .max)
        // A store written through the segment log (`serve --engine segments`, issue 34) counts its
        // chunks and its segments; the SQLite log holds none of its events.
        let stats = FileManager.default.fileExists(atPath: SegmentEventStore.segmentsDirectory(forDatabase: store.db))
            ? try SegmentEventStore.stats(path: store.db, tables: opened, fromMs: fromMs, toMs: toMs)
            : try opened.stats(fromMs: fromMs, toMs: toMs)
        var json = JSONText()
        json.beginObject()
        json.field("requests", stats.requests)
        json.field("accepted", stats.accepted)
        json.field("duplicates", stats.duplicates)
        json.field("rejected", stats.rejected)
        json.counts("rejected_by_code", stats.rejectedByCode)
        json.field("stored_events", stats.storedEvents)
        json.endObject()
        print(json.text)
    }
}

/// `handz-analytics layer`: upgrades the embedded store in place if it is older (issue 33 §5:
/// a store of schema 5 loses its analytical layer), then brings its column store up to date with
/// the log: the rows past the watermark sealed, the log's journaled deletions applied to the
/// chunks they touch, or, with `--rebuild`, everything sealed again from nothing. Analysis never
/// does this (it opens the store read-only); this is for operators (after a restore, to upgrade a
/// file analysis refuses as older, or to seal what `serve` has not yet).
struct LayerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layer",
        abstract: "Upgrade the store if it is older and bring its column store up to date with the log (or rebuild it).")

    @OptionGroup var store: StoreOptions

    @Flag(help: "Seal every stored event again from nothing (a store of the SQLite log; a segment store's chunks are its only copy of the events).")
    var rebuild = false

    @Option(help: "Upgrade a store of the SQLite log in place to this write path: segments (one-way: every stored event moves into the column store, and serve --engine sqlite refuses it afterwards). A segment store is left as it is.")
    var engine: String?

    func validate() throws {
        if let engine, engine != EmbeddedEngine.segments.rawValue {
            throw ValidationError("--engine can only upgrade to segments; a store never goes back to the SQLite log")
        }
        if rebuild, engine != nil || isSegmentStore(store.db) {
            throw ValidationError("--rebuild applies to a store of the SQLite log: a segment store's chunks are the only copy of its events")
        }
    }

    func run() throws {
        let start = ContinuousClock.now
        let sealed: (rows: Int, rewritten: Int, startedOver: Bool)
        if engine != nil || isSegmentStore(store.db) {
            // Opening by the segment engine upgrades a store of the SQLite log in place (its
            // steps logged) and replays the segments; what waits in them is then sealed.
            try requireExistingDatabase(store.db)
            let opened = try SegmentEventStore(path: store.db) { FileHandle.standardError.write(Data("note: \($0)\n".utf8)) }
            defer { opened.closeNow() }
            var outcome: SegmentSealer.Outcome?
            if try opened.hasUnsealedEvents() {
                outcome = try opened.columns.withWriter(lockWait: .seconds(600)) { writer, _ in try opened.seal(into: writer) }
                guard outcome != nil else { throw CleanFailure("the column store of \(store.db) stayed busy") }
            }
            sealed = (outcome?.sealedRows ?? 0, 0, false)
        } else {
            // Opening the store migrates an older file; nothing else is written to the log here.
            try store.open(configuration: StoreConfiguration()).closeNow()
            if rebuild { ColumnStoreCopy.discard(forDatabase: store.db) }
            let outcome = try ColumnSealing.seal(db: store.db)
            sealed = (outcome.sealedRows, outcome.rewrittenChunks, outcome.startedOver)
        }
        let elapsed = ContinuousClock.now - start
        var json = JSONText()
        json.beginObject()
        json.field("milliseconds", Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
        json.field("engine", isSegmentStore(store.db) ? EmbeddedEngine.segments.rawValue : EmbeddedEngine.sqlite.rawValue)
        json.field("sealed_rows", sealed.rows)
        json.field("rewritten_chunks", sealed.rewritten)
        json.field("started_over", sealed.startedOver)
        json.endObject()
        print(json.text)
    }
}

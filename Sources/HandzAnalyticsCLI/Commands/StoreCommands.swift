import ArgumentParser
import Foundation
import HandzColumnStore
import HandzAnalyticsCore
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
        let stats = try opened.stats(fromMs: from.flatMap(TimestampFormat.milliseconds) ?? .min, toMs: to.flatMap(TimestampFormat.milliseconds) ?? .max)
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

/// `handz-analytics layer`: brings the embedded store's analytical layer up to date with its log
/// (issue 15), or rebuilds it from the log, and reports the lag; it migrates an older file first.
/// Analysis never does this (it opens the store read-only and reads the log while the layer lags);
/// this is for operators (after a restore, to upgrade a file analysis refuses as older, or to
/// check how far `serve` is behind).
struct LayerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layer",
        abstract: "Fold new stored events into the analytical layer (or rebuild it from the log) and print the lag.")

    @OptionGroup var store: StoreOptions

    @Flag(help: "Empty the layer first and fold every stored event again.")
    var rebuild = false

    @Option(help: "Stored events folded per transaction.")
    var batchRows = AnalyticalLayer.defaultBatchRows

    /// Fault injection for the tests: SIGKILL inside the Nth batch's transaction, before it commits.
    @Option(help: .hidden)
    var faultKillInBatch: Int?

    func validate() throws {
        guard batchRows > 0 else { throw ValidationError("--batch-rows must be positive") }
    }

    func run() throws {
        // The folds are this command's own, counted in its output: no idle folding by the writer.
        var configuration = StoreConfiguration()
        configuration.idleFoldRows = 0
        let opened = try store.open(configuration: configuration)
        defer { opened.closeNow() }
        let start = ContinuousClock.now
        if rebuild { try opened.emptyAnalyticalLayerNow() }
        let kill = faultKillInBatch
        let status = try opened.catchUpAnalyticalLayerNow(batchRows: batchRows, beforeCommit: { batch in
            if let kill, batch >= kill { Foundation.kill(getpid(), SIGKILL) }
        })
        // The column store follows the log too: sealed from where it stopped, or from the start
        // with --rebuild (or after rows of the log changed).
        if rebuild { try? FileManager.default.removeItem(atPath: ColumnStore.directory(forDatabase: store.db)) }
        let sealed = try ColumnSealing.seal(db: store.db)
        let elapsed = ContinuousClock.now - start
        var json = JSONText()
        json.beginObject()
        json.field("folded", status.folded)
        json.field("lag_rows", Int(status.lagRows))
        json.field("milliseconds", Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
        json.field("sealed_rows", sealed.sealedRows)
        json.endObject()
        print(json.text)
    }
}

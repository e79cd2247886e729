import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzLake
import HandzPostgresStore
import HandzStore
import HandzSynthetic

/// `handz-analytics export lake --from DATE --to DATE --out DIR [--db PATH | --store postgres://…]`.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export stored events to files other engines read.",
        subcommands: [Lake.self]
    )

    struct Lake: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the events received in [from, to) as gzip NDJSON partitions dt=YYYY-MM-DD/hour=HH with manifests; re-running rewrites only what changed."
        )

        @Option(help: "From (inclusive), UTC date or ISO-8601 time of receipt; rounded down to the hour.")
        var from: String

        @Option(help: "To (exclusive), UTC date or ISO-8601 time of receipt; rounded up to the hour.")
        var to: String

        @Option(help: "The lake's root directory (created when missing).")
        var out: String

        @Option(help: "SQLite database file.")
        var db = "handz-events.sqlite"

        @Option(help: "Read a shared PostgreSQL store (postgres://user@host:port/database; the password from PGPASSWORD) instead of --db.")
        var store: String?

        func validate() throws {
            guard let fromMs = TimestampFormat.milliseconds(from) else { throw ValidationError("--from must be a UTC date (2026-03-01) or ISO-8601 time") }
            guard let toMs = TimestampFormat.milliseconds(to) else { throw ValidationError("--to must be a UTC date (2026-03-01) or ISO-8601 time") }
            guard fromMs < toMs else { throw ValidationError("--from must be before --to") }
            try checkPostgresURL(store)
        }

        func run() async throws {
            let source: any EventStore
            if let store {
                source = try await PostgresEventStore(url: store)
            } else {
                try requireExistingDatabase(db)
                source = try openEmbeddedStore(db)
            }
            let started = ContinuousClock.now
            let exporter = LakeExporter(root: URL(fileURLWithPath: out))
            let result: Result<LakeExportSummary, any Error>
            do {
                result = .success(try await exporter.export(from: source, receivedFromMs: TimestampFormat.milliseconds(from)!, toMs: TimestampFormat.milliseconds(to)!))
            } catch {
                result = .failure(error)
            }
            await source.close()
            let summary = try result.get()
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            var json = JSONText()
            json.beginObject()
            json.field("partitions_written", summary.written)
            json.field("partitions_unchanged", summary.unchanged)
            json.field("partitions_removed", summary.removed)
            json.field("rows", summary.rows)
            json.field("uncompressed_bytes", summary.uncompressedBytes)
            json.field("compressed_bytes", summary.compressedBytes)
            json.key("seconds")
            json.double((seconds * 1000).rounded() / 1000)
            json.endObject()
            print(json.text)
        }
    }
}

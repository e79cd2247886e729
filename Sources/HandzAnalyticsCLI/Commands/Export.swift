import ArgumentParser
import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzLake
import HandzPostgresStore
import HandzSQLite
import HandzStore
import HandzSynthetic

/// `handz-analytics export lake --from DATE --to DATE --out DIR [--db PATH | --store postgres://…]`.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export stored events to files other engines read.",
        subcommands: [Lake.self, SQLite.self]
    )

    /// The summary's `seconds` field: the export's wall time, to the millisecond.
    static func seconds(since started: ContinuousClock.Instant, into json: inout JSONText) {
        json.key("seconds")
        json.double((((ContinuousClock.now - started) / .seconds(1)) * 1000).rounded() / 1000)
    }

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
            var json = JSONText()
            json.beginObject()
            json.field("partitions_written", summary.written)
            json.field("partitions_unchanged", summary.unchanged)
            json.field("partitions_removed", summary.removed)
            json.field("rows", summary.rows)
            json.field("uncompressed_bytes", summary.uncompressedBytes)
            json.field("compressed_bytes", summary.compressedBytes)
            Export.seconds(since: started, into: &json)
            json.endObject()
            print(json.text)
        }
    }

    /// `export sqlite --db STORE --out FILE`: the analyst's `events` and `install_first_seen`
    /// tables in a file of their own (``SQLiteEventsFile``), what the SQLite dialect's SQL runs
    /// on. A segment store has no `events` table to run it on (issue 34 §5).
    struct SQLite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sqlite",
            abstract: "Write the stored events (and each install's first-seen time) into a new SQLite file with the tables `sql ddl --dialect sqlite` creates, for the SQLite dialect's SQL."
        )

        @Option(help: "The embedded store (either engine).")
        var db = "handz-events.sqlite"

        @Option(help: "The SQLite file to create (refused when it exists).")
        var out: String

        @Option(help: "From (inclusive), UTC date or ISO-8601 time of receipt (default: the first event).")
        var from: String?

        @Option(help: "To (exclusive), UTC date or ISO-8601 time of receipt (default: after the last event).")
        var to: String?

        func validate() throws {
            if let from, TimestampFormat.milliseconds(from) == nil { throw ValidationError("--from must be a UTC date (2026-03-01) or ISO-8601 time") }
            if let to, TimestampFormat.milliseconds(to) == nil { throw ValidationError("--to must be a UTC date (2026-03-01) or ISO-8601 time") }
            guard !FileManager.default.fileExists(atPath: out) else { throw ValidationError("\(out) exists; export sqlite writes a new file") }
        }

        func run() async throws {
            try requireExistingDatabase(db)
            let started = ContinuousClock.now
            // install_first_seen is a table of the SQLite file under either engine (issue 32 §6).
            let firstSeen = try SQLiteDatabase(path: db, readOnly: true)
                .prepare("SELECT install_id, first_app_open_ms, last_received_ms FROM install_first_seen ORDER BY install_id")
                .query { (installID: $0.text(0) ?? "", firstAppOpenMs: $0.int64(1), lastReceivedMs: $0.int64(2)) }
            let source = try openEmbeddedStore(db)
            let result: Result<SQLiteEventsFile.Summary, any Error>
            do {
                result = .success(try await SQLiteEventsFile(path: out).write(
                    from: source, receivedFromMs: from.flatMap(TimestampFormat.milliseconds) ?? .min,
                    toMs: to.flatMap(TimestampFormat.milliseconds) ?? .max, firstSeen: firstSeen))
            } catch {
                result = .failure(error)
            }
            await source.close()
            let summary: SQLiteEventsFile.Summary
            do {
                summary = try result.get()
            } catch {
                try? FileManager.default.removeItem(atPath: out)
                throw error
            }
            var json = JSONText()
            json.beginObject()
            json.field("events", summary.events)
            json.field("installs", summary.installs)
            Export.seconds(since: started, into: &json)
            json.endObject()
            print(json.text)
        }
    }
}

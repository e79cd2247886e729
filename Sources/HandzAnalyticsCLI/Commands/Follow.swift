import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzColumnStore
import HandzPostgresStore
import HandzServer
import HandzStore
import HandzSynthetic

/// `handz-analytics follow --store URL --db PATH`: one catch-up of an analysis node's copy
/// (issue 36): every event the shared store has committed, then its deletion requests, then a
/// seal into the column store — what `serve --follow` does every half second, for a node
/// started from empty on a store that already holds millions of events, with progress.
struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a shared PostgreSQL store's committed events (and its deletions) into an embedded segment store, from where the last copy stopped; serve --follow keeps doing it."
    )

    @Option(help: "The shared store: postgres://user@host:port/database (the password from PGPASSWORD).")
    var store: String

    @Option(help: "The copy: an embedded segment store (created when missing).")
    var db = "handz-events.sqlite"

    @Option(help: "Events read per statement.")
    var pageSize = 20_000

    func validate() throws {
        try checkPostgresURL(store)
        guard (1_000...1_000_000).contains(pageSize) else { throw ValidationError("--page-size must be 1000-1000000") }
        if FileManager.default.fileExists(atPath: db), !isSegmentStore(db) {
            throw ValidationError("\(db) is a store of the SQLite log; a copy is a segment store (`layer --engine segments` upgrades it)")
        }
    }

    func run() async throws {
        let source = try await PostgresEventStore(url: store)
        var configuration = StoreConfiguration()
        configuration.synchronous = .normal
        let copy = try SegmentEventStore(path: db, configuration: configuration)
        let follower = StoreFollower(source: source, copy: copy, pageSize: pageSize)
        let progress = ProgressLine()
        let started = Date()
        do {
            let round = try await follower.round(countingTotal: true) { sofar, total in
                let done = sofar.copied + sofar.duplicates
                let rate = Double(done) / max(0.001, Date().timeIntervalSince(started))
                progress.update("following: \(done) of \(total) events, \(Int(rate)) events/s")
            }
            progress.finish()
            let read = Date().timeIntervalSince(started)
            let deletions = try await follower.applyDeletions(owner: "\(ProcessInfo.processInfo.hostName)/\(getpid())/follow")
            let sealing = ProgressLine()
            sealing.update("sealing into column chunks")
            _ = try copy.columns.withWriter(lockWait: .seconds(600)) { writer, _ in try copy.seal(into: writer, maxPartsPerDay: 1, rowsPerPart: 1_000_000) }
            sealing.finish()
            await copy.close()
            await source.close()
            // Timings for the operator (and scripts/bench-follow.sh): reading into the segment log, then the seal.
            var json = JSONText()
            json.beginObject()
            json.field("copied", round.copied)
            json.field("duplicates", round.duplicates)
            json.field("horizon", String(round.horizon))
            json.field("deletions", deletions)
            json.key("read_seconds")
            json.raw(String(format: "%.2f", read))
            json.key("seal_seconds")
            json.raw(String(format: "%.2f", Date().timeIntervalSince(started) - read))
            json.endObject()
            print(json.text)
        } catch {
            progress.finish()
            await copy.close()
            await source.close()
            throw error
        }
    }
}

import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzLake
import HandzLifecycle
import HandzPostgresStore
import HandzStore

/// The store the privacy commands work on: the SQLite file (`--db`) or a PostgreSQL store
/// (`--store postgres://…`, password from PGPASSWORD), and the lake written from it, if any.
struct LifecycleStoreOptions: ParsableArguments {
    @Option(help: "SQLite database file.")
    var db = "handz-events.sqlite"

    @Option(help: "A PostgreSQL store instead of --db: postgres://user@host:port/database (the password from PGPASSWORD).")
    var store: String?

    @Option(help: "The event lake written from this store: its partitions are rewritten or removed too.")
    var lake: String?

    func validate() throws {
        try checkPostgresURL(store)
        if store == nil { try requireExistingDatabase(db) }
    }

    /// Whether `db` is a segment engine's store (its store step rewrites its chunks itself).
    var isSegmentStore: Bool { store == nil && HandzAnalyticsCLI.isSegmentStore(db) }

    func open() async throws -> any EventStore {
        if let store { return try await PostgresEventStore(url: store) }
        return try openEmbeddedStore(db)
    }

    var lakeExporter: LakeExporter? { lake.map { LakeExporter(root: URL(fileURLWithPath: $0)) } }

    /// A worker that does every step now (no batching delay: a person asked for it).
    func worker(_ store: any EventStore) -> DeletionWorker {
        var worker = DeletionWorker(store: store, lake: lakeExporter, owner: "\(ProcessInfo.processInfo.hostName)/\(getpid())/cli",
                                    clock: { Int64(Date().timeIntervalSince1970 * 1000) })
        // The segment engine's store step rewrites its chunks itself.
        if self.store == nil && !isSegmentStore {
            let db = db
            worker.afterStoreStep = { try ColumnSealing.follow(db: db) }
        }
        return worker
    }
}

/// `handz-analytics forget-user USER_ID`: CH33 §9 / CH34 §8 account deletion, carried out now.
struct ForgetUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget-user",
        abstract: "Delete a user from analytics: record the request in the deletion ledger and carry it out now.",
        discussion: """
        The user's past events lose their user_id and get fresh install and session ids (still counted, tied to no \
        device); old row versions are reclaimed; with --lake, every lake partition that held them is rewritten. \
        Prints the ledger's request (no user id). A repeated request for the same user is a no-op.
        """
    )

    @OptionGroup var options: LifecycleStoreOptions

    @Argument(help: "The user_id (a UUID).")
    var userID: String

    func validate() throws {
        guard StringFormat.uuid.matches(userID) else { throw ValidationError("USER_ID must be a UUID") }
    }

    func run() async throws {
        let store = try await options.open()
        if options.lake != nil { try await store.registerLake() }
        let (request, _) = try await store.requestDeletion(userID: userID.lowercased(), nowMs: Int64(Date().timeIntervalSince1970 * 1000))
        _ = try await options.worker(store).runUntilIdle()
        let settled = try await store.deletionRequest(id: request.id) ?? request
        await store.close()
        print(settled.json())
        if settled.state != .completed {
            FileHandle.standardError.write(Data("the request is not complete yet (see steps and last_error); `handz-analytics deletions run` or `serve` finishes it\n".utf8))
        }
    }
}

/// `handz-analytics purge --older-than 13mo`: the retention period (CH33-P3), by hand.
struct Purge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete what was received before the retention period (e.g. 13mo, 400d): events, receipts, quarantine, completed deletion requests, audit rows and lake partitions.")

    @OptionGroup var options: LifecycleStoreOptions

    @Option(help: "Retention: Nmo (calendar months, UTC) or Nd (days).")
    var olderThan: String

    func validate() throws {
        guard let policy = RetentionPolicy(olderThan), policy != .off else { throw ValidationError("--older-than must look like 13mo or 400d") }
    }

    func run() async throws {
        let store = try await options.open()
        let runner = RetentionRunner(store: store, lake: options.lakeExporter, policy: RetentionPolicy(olderThan)!)
        let outcome = try await runner.run(nowMs: Int64(Date().timeIntervalSince1970 * 1000))!
        await store.close()
        if options.store == nil && !options.isSegmentStore { try ColumnSealing.follow(db: options.db) }
        print("{\"cutoff_ms\":\(outcome.cutoffMs),\"events\":\(outcome.store.events),\"rejected_events\":\(outcome.store.rejectedEvents),"
              + "\"batches\":\(outcome.store.batches),\"deletion_requests\":\(outcome.store.deletionRequests),\"audit_entries\":\(outcome.store.auditEntries),"
              + "\"lake_partitions\":\(outcome.lakePartitionsRemoved)}")
    }
}

/// `handz-analytics deletions list|show|run`: the deletion ledger for operators and privacy reviews.
struct Deletions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The deletion ledger: list requests, show one, or carry every pending one as far as possible now.",
        subcommands: [List.self, Show.self, Run.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The newest requests, one JSON object per line (with the salted hash, never the user id).")

        @OptionGroup var options: LifecycleStoreOptions

        @Option(help: "How many.")
        var limit = 100

        func run() async throws {
            let store = try await options.open()
            let requests = try await store.deletionRequests(limit: max(1, limit))
            await store.close()
            for request in requests { print(request.json(includeHash: true)) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One request's steps and counts.")

        @OptionGroup var options: LifecycleStoreOptions

        @Argument(help: "The request id (a UUID).")
        var requestID: String

        func run() async throws {
            let store = try await options.open()
            let request = try await store.deletionRequest(id: requestID.lowercased())
            await store.close()
            guard let request else { throw ValidationError("no deletion request has this id") }
            print(request.json(includeHash: true))
        }
    }

    /// What a cron job runs as the tables' owner when `serve` runs as the least-privilege role,
    /// which may not `VACUUM FULL` on PostgreSQL 15 (the old-versions step then waits for this).
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Carry every pending request as far as possible now (run as the tables' owner for PostgreSQL's VACUUM FULL).")

        @OptionGroup var options: LifecycleStoreOptions

        func run() async throws {
            let store = try await options.open()
            let outcomes = try await options.worker(store).runUntilIdle()
            await store.close()
            for outcome in outcomes { if let request = outcome.request { print(request.json(includeHash: true)) } }
        }
    }
}

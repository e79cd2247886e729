/// Why the store could not do what was asked. Messages never contain event values.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database could not be written (disk full, I/O error, locked too long). Retryable.
    case unavailable(String)
    /// The write queue is full; retry shortly.
    case overloaded
    /// The store is shutting down.
    case closed

    public var description: String {
        switch self {
        case .unavailable(let reason): "store unavailable: \(reason)"
        case .overloaded: "store overloaded"
        case .closed: "store closed"
        }
    }
}

/// How the store trades durability for speed.
public struct StoreConfiguration: Sendable {
    /// `full`: every commit is fsynced — acknowledged events survive power loss. `normal`: they
    /// survive a process crash (`kill -9`) but the last commits may be lost on power loss.
    public enum Synchronous: String, Sendable, CaseIterable { case full, normal }

    public var synchronous: Synchronous = .full
    /// Rows per group commit at most (several requests share one transaction).
    public var maxRowsPerCommit = 20_000
    /// Rows waiting for the writer at most; beyond that `append` fails with `overloaded`.
    public var maxQueuedRows = 100_000
    /// SQLite page cache of the writer, in MiB.
    public var cacheMiB = 128
    /// A quota on the database file (`serve --max-db-bytes`), nil for none: the writer's
    /// `max_page_count`. A commit that would pass it fails like a full disk (SQLite reports both
    /// as `SQLITE_FULL`): rolled back, its batches answered 503 with `Retry-After`, nothing of
    /// them acknowledged; writes succeed again once `purge` or `forget-user` free pages or the
    /// quota is raised. The write-ahead log is not counted (it is truncated at checkpoints).
    public var maxDatabaseBytes: Int?

    public init() {}
}

/// Counts over a time range (`handz-analytics stats`).
public struct StoreStats: Sendable, Equatable {
    public var requests = 0
    public var accepted = 0
    public var duplicates = 0
    public var rejected = 0
    /// Rejected events per error code (an event with two codes counts under both).
    public var rejectedByCode: [String: Int] = [:]
    public var storedEvents = 0

    public init() {}
}

/// What `purge` removed.
public struct PurgeResult: Sendable, Equatable {
    public var events = 0
    public var rejectedEvents = 0
    public var batches = 0
    /// Completed deletion requests, and privacy audit rows, older than the cutoff.
    public var deletionRequests = 0
    public var auditEntries = 0

    public init(events: Int = 0, rejectedEvents: Int = 0, batches: Int = 0, deletionRequests: Int = 0, auditEntries: Int = 0) {
        self.events = events
        self.rejectedEvents = rejectedEvents
        self.batches = batches
        self.deletionRequests = deletionRequests
        self.auditEntries = auditEntries
    }
}

/// One account deletion as the ledger records it (issue 14 §1; CH34 §8.1 deadline, §8.3 what is
/// kept). The user id itself is held only until the store step has run; afterwards the row keeps
/// the salted hash and counts — what a privacy review needs to see that the request completed.
public struct DeletionRequest: Sendable, Equatable {
    /// Progress of one copy of the data.
    public enum Step: String, Sendable, CaseIterable {
        /// Still to do.
        case pending
        /// Done.
        case done
        /// This copy does not exist here (no lake configured; SQLite has no old row versions to reclaim).
        case notApplicable = "not_applicable"
    }

    /// `pending` until every step is `done` or `not_applicable`, then `completed`.
    public enum State: String, Sendable { case pending, completed }

    /// A random UUID, given to whoever asked (`202 {"request_id":…}`).
    public var id: String
    /// HMAC-SHA256 of the user id under the store's audit salt (`AuditHash`), hex.
    public var subjectHash: String
    /// When the request was received (epoch ms): events received up to this moment are
    /// de-identified; later ones are left as they are.
    public var receivedTimeMs: Int64
    public var state: State
    /// The store's rows: user_id removed, install_id and session_id replaced (``Deidentification``).
    public var storeStep: Step
    /// Old row versions that still hold the id: PostgreSQL's dead tuples until `VACUUM FULL`; on
    /// SQLite the write-ahead log until a truncating checkpoint (`secure_delete` zeroes the pages).
    public var oldVersionsStep: Step
    /// Every lake partition that held the de-identified rows, rewritten from the store.
    public var lakeStep: Step
    /// Receive hours (epoch ms / 3,600,000) whose lake partitions the lake step rewrites.
    public var lakeHours: [Int64]
    public var eventsDeidentified: Int
    public var installsDeidentified: Int
    public var sessionsDeidentified: Int
    public var partitionsRewritten: Int
    /// Times a worker took the request (a retry after a failure or a crash adds one).
    public var attempts: Int
    /// The last failure as a stable code (``DeletionFailure``), nil once it succeeded.
    public var lastError: String?
    public var storeDoneMs: Int64?
    public var completedTimeMs: Int64?

    public init(id: String, subjectHash: String, receivedTimeMs: Int64, state: State = .pending, storeStep: Step = .pending,
                oldVersionsStep: Step, lakeStep: Step, lakeHours: [Int64] = [], eventsDeidentified: Int = 0,
                installsDeidentified: Int = 0, sessionsDeidentified: Int = 0, partitionsRewritten: Int = 0, attempts: Int = 0,
                lastError: String? = nil, storeDoneMs: Int64? = nil, completedTimeMs: Int64? = nil) {
        self.id = id
        self.subjectHash = subjectHash
        self.receivedTimeMs = receivedTimeMs
        self.state = state
        self.storeStep = storeStep
        self.oldVersionsStep = oldVersionsStep
        self.lakeStep = lakeStep
        self.lakeHours = lakeHours
        self.eventsDeidentified = eventsDeidentified
        self.installsDeidentified = installsDeidentified
        self.sessionsDeidentified = sessionsDeidentified
        self.partitionsRewritten = partitionsRewritten
        self.attempts = attempts
        self.lastError = lastError
        self.storeDoneMs = storeDoneMs
        self.completedTimeMs = completedTimeMs
    }

    /// After a failed step the request waits this long before a worker tries again.
    public static let retryDelayMs: Int64 = 60_000

    /// Whether every step is finished.
    public var allStepsFinished: Bool { [storeStep, oldVersionsStep, lakeStep].allSatisfy { $0 != .pending } }

    /// `lake_hours` as stored: comma-separated hour numbers.
    public static func encodeHours(_ hours: [Int64]) -> String { hours.map(String.init).joined(separator: ",") }
    public static func decodeHours(_ text: String?) -> [Int64] { (text ?? "").split(separator: ",").compactMap { Int64($0) } }

    /// The columns every store selects, in ``read(text:integer:)`` order.
    public static let selectList = """
        request_id, subject_hash, received_time_ms, state, store_step, old_versions_step, lake_step, lake_hours,
        events_deidentified, installs_deidentified, sessions_deidentified, partitions_rewritten, attempts, last_error,
        store_done_ms, completed_time_ms
        """

    /// Builds one from the columns of ``selectList``; `integer` returns nil for NULL.
    public static func read(text: (Int) -> String?, integer: (Int) -> Int64?) -> DeletionRequest {
        DeletionRequest(
            id: text(0) ?? "", subjectHash: text(1) ?? "", receivedTimeMs: integer(2) ?? 0,
            state: State(rawValue: text(3) ?? "") ?? .pending,
            storeStep: Step(rawValue: text(4) ?? "") ?? .pending, oldVersionsStep: Step(rawValue: text(5) ?? "") ?? .pending,
            lakeStep: Step(rawValue: text(6) ?? "") ?? .pending, lakeHours: decodeHours(text(7)),
            eventsDeidentified: Int(integer(8) ?? 0), installsDeidentified: Int(integer(9) ?? 0),
            sessionsDeidentified: Int(integer(10) ?? 0), partitionsRewritten: Int(integer(11) ?? 0), attempts: Int(integer(12) ?? 0),
            lastError: text(13), storeDoneMs: integer(14), completedTimeMs: integer(15))
    }
}

/// A request a worker holds under a lease: only it works the request until `leaseUntilMs`
/// (issue 14 §1: exactly one node at a time). `userID` is there only while the store step is pending.
public struct DeletionClaim: Sendable {
    public var request: DeletionRequest
    public var userID: String?
    public var owner: String

    public init(request: DeletionRequest, userID: String?, owner: String) {
        self.request = request
        self.userID = userID
        self.owner = owner
    }
}

/// Why a step failed, as a stable code for `last_error` (never a value, a path or an id).
public enum DeletionFailure: String, Sendable {
    case storeUnavailable = "store_unavailable"
    case lakeWriteFailed = "lake_write_failed"
    /// The database role may not run `VACUUM FULL` (PostgreSQL: only the table owner may): the
    /// step waits for `handz-analytics deletions vacuum` run as the owner.
    case vacuumNotPermitted = "vacuum_not_permitted"
    /// PostgreSQL: another transaction of the database held a snapshot for the whole wait, and
    /// `VACUUM FULL` copies every row version a snapshot may still see: the step waits for the
    /// next run.
    case oldSnapshotOpen = "old_snapshot_open"
}

/// What the store step changed.
public struct DeidentifyResult: Sendable, Equatable {
    public var events = 0
    public var installs = 0
    public var sessions = 0
    /// Receive hours that held changed rows (for the lake step).
    public var hours: [Int64] = []

    public init() {}
}

/// The ages an operator alerts on (`/health`, `/metrics`; issue 14 §4).
public struct LifecycleStatus: Sendable, Equatable {
    /// Receive time of the oldest stored event, nil when the store is empty.
    public var oldestEventMs: Int64?
    /// Receive time of the oldest request not yet completed, nil when none is pending.
    public var oldestPendingDeletionMs: Int64?
    public var pendingDeletions = 0

    public init(oldestEventMs: Int64? = nil, oldestPendingDeletionMs: Int64? = nil, pendingDeletions: Int = 0) {
        self.oldestEventMs = oldestEventMs
        self.oldestPendingDeletionMs = oldestPendingDeletionMs
        self.pendingDeletions = pendingDeletions
    }
}

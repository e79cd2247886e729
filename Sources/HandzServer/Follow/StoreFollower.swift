import Foundation
import HandzAnalyticsCore
import HandzColumnStore
import HandzPostgresStore
import HandzLifecycle
import HandzSigning
import HandzStore

/// An analysis node's copy of the shared PostgreSQL store (issue 36 §1): reads the store's events
/// in commit order (`PostgresEventStore.committedPage(after:limit:)`) and appends them, as
/// they were stored, to an embedded segment store — which `serve` then seals into the column
/// store and answers every page, the explorer and `funnel`/`kpi`/`qa --db` from, as on one node.
///
/// Exactly the store's events, none twice: the cursor (`FollowCursor`) is saved in the copy's
/// `store_meta` after each page is durable in its segment log; a crash between the two re-reads
/// that page, whose events the copy's exact dedupe (`EventIDIndex`) then drops as duplicates.
/// Several analysis nodes may follow one store: each keeps its own cursor and copy, and only
/// reads.
public final class StoreFollower: @unchecked Sendable {
    public let source: PostgresEventStore
    public let copy: SegmentEventStore
    /// Events read per statement.
    public let pageSize: Int
    static let cursorKey = "follow_cursor"

    public init(source: PostgresEventStore, copy: SegmentEventStore, pageSize: Int = 20_000) {
        self.source = source
        self.copy = copy
        self.pageSize = pageSize
    }

    /// What one round did.
    public struct Round: Sendable, Equatable {
        /// Events appended to the copy (duplicates of a re-read page not counted).
        public var copied = 0
        public var duplicates = 0
        /// The horizon the round read up to.
        public var horizon: UInt64 = 0

        public init(copied: Int = 0, duplicates: Int = 0, horizon: UInt64 = 0) {
            (self.copied, self.duplicates, self.horizon) = (copied, duplicates, horizon)
        }
    }

    /// The saved cursor (a new copy: from the start).
    public func cursor() throws -> FollowCursor {
        guard let text = try copy.tables.metaValue(Self.cursorKey) else { return FollowCursor() }
        return try JSONDecoder().decode(FollowCursor.self, from: Data(text.utf8))
    }

    func save(_ cursor: FollowCursor) throws {
        try copy.tables.setMetaValue(Self.cursorKey, String(decoding: try JSONEncoder().encode(cursor), as: UTF8.self))
    }

    /// Copies every event committed before the current horizon (resuming a round a crash cut
    /// short), page by page; `progress`, when given, gets after each page what the round has done
    /// so far and, with `countingTotal` (`follow`'s progress line), the events it reads in all — counted only then, not in `serve`'s rounds every half second.
    @discardableResult
    public func round(countingTotal: Bool = false, progress: ((_ sofar: Round, _ total: Int64) -> Void)? = nil) async throws -> Round {
        var cursor = try cursor()
        if cursor.afterXID == nil {
            // A new round: up to the store's horizon now.
            cursor = FollowCursor(through: cursor.horizon, horizon: max(cursor.horizon, try await source.commitHorizon()))
        }
        var round = Round(horizon: cursor.horizon)
        let total = !countingTotal ? 0 : try await source.eventsToFollow(after: FollowCursor(through: cursor.through, horizon: cursor.horizon))
        // Reading a page overlaps writing the one before: the next statement is sent as soon as
        // a page's last key is known, while the segment writer makes that page durable.
        var reading = Task { [source, pageSize, cursor] in try await source.committedPage(after: cursor, limit: pageSize) }
        defer { reading.cancel() }
        while true {
            let page = try await reading.value
            guard let last = page.last else { break }
            cursor.afterXID = last.commitXID
            cursor.afterEventID = last.eventID
            let more = page.count == pageSize
            if more { reading = Task { [source, pageSize, cursor] in try await source.committedPage(after: cursor, limit: pageSize) } }
            // The page's receipts appended at once: the segment writer commits them as one group
            // (one write and one fdatasync), not one per receipt.
            let results = try await withThrowingTaskGroup(of: AppendResult.self) { group in
                for batch in page.batches {
                    let request = IngestBatch(receivedTimeMs: batch.receipt.receivedTimeMs, keyID: batch.receipt.keyID,
                                              catalogVersion: batch.receipt.catalogVersion, sentAtMs: nil, bodyBytes: 0, rows: batch.rows, rejected: [])
                    group.addTask { [copy] in try await copy.append(request) }
                }
                return try await group.reduce(into: [AppendResult]()) { $0.append($1) }
            }
            for result in results {
                round.copied += result.accepted
                round.duplicates += result.duplicates
            }
            try save(cursor)
            progress?(round, total)
            if !more { break }
        }
        // The round is whole: everything below its horizon is in the copy.
        cursor = FollowCursor(through: cursor.horizon, horizon: cursor.horizon)
        try save(cursor)
        return round
    }
}

/// Deletion reaches the copy (issue 36 §2, CH34 §8): every deletion request of the shared store is
/// carried out on the copy too, in the follower's next round (within its lag, far inside the
/// Privacy guide's deadline).
///
/// A request the shared store has run keeps only the user's salted hash (`subject_hash`), so the
/// copy adopts the shared store's audit salt and matches the hash against the ids it holds
/// (`SegmentEventStore.idTexts()`); a match is recorded in the copy's own ledger and run at
/// once, as `forget-user` does, so the copy's ledger and audit show it with the same hash. Hashes
/// already matched, or that matched nothing, are remembered (`follow_deletions_seen`) so each is
/// looked for once: an id the copy does not hold when a request arrives was deleted in the shared
/// store before the copy read it.
extension StoreFollower {
    static let seenKey = "follow_deletions_seen"

    /// Carries out the shared store's new deletion requests on the copy; returns how many matched.
    @discardableResult
    public func applyDeletions(owner: String) async throws -> Int {
        let (salt, hashes) = try await source.deletionSubjectsToFollow()
        guard let salt, !hashes.isEmpty else { return 0 }
        var seen = Set(try copy.tables.metaValue(Self.seenKey).map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? [])
        let new = hashes.subtracting(seen)
        guard !new.isEmpty else { return 0 }
        try adoptSalt(salt)
        var matched = 0
        for text in try copy.idTexts() where new.contains(Hex.encode(HMACSHA256.code(key: salt, data: Array(text.utf8)))) {
            _ = try await copy.requestDeletion(userID: text, nowMs: Int64(Date().timeIntervalSince1970 * 1000))
            matched += 1
        }
        if matched > 0 {
            let worker = DeletionWorker(store: copy, lake: nil, owner: owner, clock: { Int64(Date().timeIntervalSince1970 * 1000) })
            _ = try await worker.runUntilIdle()
        }
        seen.formUnion(new)
        try copy.tables.setMetaValue(Self.seenKey, String(decoding: try JSONEncoder().encode(seen.sorted()), as: UTF8.self))
        return matched
    }

    /// The copy's audit hashes are the shared store's: its salt, taken before the copy's first
    /// deletion (a copy that already hashed with its own salt keeps it, and says so).
    func adoptSalt(_ salt: [UInt8]) throws {
        let current = try copy.tables.metaValue("audit_salt")
        guard current != Hex.encode(salt) else { return }
        let ledgerEmpty = try copy.tables.deletionRequestsNow(limit: 1).isEmpty
        guard current == nil || ledgerEmpty else {
            throw StoreError.unavailable("the copy's deletion ledger uses a salt of its own; its hashes will not match the shared store's")
        }
        try copy.tables.setMetaValue("audit_salt", Hex.encode(salt))
    }
}

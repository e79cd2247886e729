import HandzAnalyticsCore
import HandzSigning
import HandzStore
import PostgresNIO

/// A page of the shared store's events as an analysis node appends them (issue 36 §1): grouped
/// by the receipt that stored them, each event's fields packed into `EventRows` straight from the
/// cells' bytes (no `String` per cell, no dictionary per row), and where the page ended.
public struct FollowedPage: Sendable {
    /// The request columns an event was stored with: one batch of the copy per receipt.
    public struct Receipt: Hashable, Sendable {
        public var receivedTimeMs: Int64
        public var keyID: String
        public var catalogVersion: String
    }

    /// The page's receipts in the order the page first meets each, with their events in page
    /// order. Grouped across the page, not only where consecutive: a transaction that stored many
    /// receipts at once (an import, a bulk `\copy`) hands its rows out by event id, interleaved.
    public var batches: [(receipt: Receipt, rows: EventRows)] = []
    /// Events on the page.
    public var count = 0
    /// The (commit_xid, event_id) of its last event: where the next page starts.
    public var last: (commitXID: UInt64, eventID: String)?
}

/// Where a follower stands: every event with `commit_xid` below `through` is copied, and of the
/// ones from `through` up to the round's `horizon`, those up to `after` in (commit_xid, event_id)
/// order. A follower keeps it with its copy and reads on from it.
public struct FollowCursor: Sendable, Equatable, Codable {
    public var through: UInt64
    public var horizon: UInt64
    public var afterXID: UInt64?
    public var afterEventID: String?

    public init(through: UInt64 = 0, horizon: UInt64 = 0, afterXID: UInt64? = nil, afterEventID: String? = nil) {
        (self.through, self.horizon, self.afterXID, self.afterEventID) = (through, horizon, afterXID, afterEventID)
    }
}

/// Reading the shared store in commit order, for analysis nodes (issue 36 §1).
///
/// Why a transaction id and a snapshot's xmin rather than a sequence: a `BIGSERIAL` is taken when
/// a row is inserted, not when its transaction commits, so a follower that read up to 1,000 can
/// later meet a 990 committed late and skip it. `pg_snapshot_xmin(pg_current_snapshot())` is the
/// oldest transaction still running: every transaction below it has committed or rolled back,
/// so the rows with `commit_xid` below it are final (deletions aside) and visible to any later
/// statement. A round reads the rows from the last horizon up to the new one, in pages by
/// (commit_xid, event_id); a long transaction elsewhere holds the horizon back (the follower's
/// lag says so) but never makes it skip a row.
extension PostgresEventStore {
    /// The commit horizon now: every transaction with a smaller id has ended.
    public func commitHorizon() async throws -> UInt64 {
        let rows = try await client.query("SELECT pg_snapshot_xmin(pg_current_snapshot())::text", logger: logger)
        for try await (text) in rows.decode(String.self) {
            guard let value = UInt64(text) else { break }
            return value
        }
        throw StoreError.unavailable("the database gave no snapshot horizon")
    }

    /// Up to `limit` events with `cursor.through ≤ commit_xid < cursor.horizon` after the cursor's
    /// (commit_xid, event_id), in that order; one statement, streamed, packed as it arrives.
    public func committedPage(after cursor: FollowCursor, limit: Int) async throws -> FollowedPage {
        var bindings = PostgresBindings()
        bindings.append(String(cursor.through))
        bindings.append(String(cursor.horizon))
        var after = ""
        if let xid = cursor.afterXID, let id = cursor.afterEventID {
            bindings.append(String(xid))
            bindings.append(id)
            after = " AND (commit_xid, event_id) > ($3::text::xid8, $4)"
        }
        bindings.append(Int64(limit))
        // The text of commit_xid under another name: `ORDER BY commit_xid` would otherwise sort by
        // that output column's text, every matching row for every page, not walk the index.
        let sql = "SELECT commit_xid::text AS commit_order, \(ExportedEvent.selectList(eventID: "event_id", properties: "properties::text")) FROM events "
            + "WHERE commit_xid >= $1::text::xid8 AND commit_xid < $2::text::xid8\(after) ORDER BY commit_xid, event_id LIMIT $\(bindings.count)"
        let rows = try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
        var packer = FollowedPagePacker()
        for try await row in rows { try packer.add(row) }
        return packer.page
    }

    /// How many events lie between the cursor and the horizon (for a follower's progress line).
    public func eventsToFollow(after cursor: FollowCursor) async throws -> Int64 {
        var bindings = PostgresBindings()
        bindings.append(String(cursor.through))
        bindings.append(String(cursor.horizon))
        let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM events WHERE commit_xid >= $1::text::xid8 AND commit_xid < $2::text::xid8", binds: bindings), logger: logger)
        for try await count in rows.decode(Int64.self) { return count }
        return 0
    }

    /// The audit salt (nil before the first deletion) and the subject hash of every deletion
    /// request: what a follower matches against its copy (issue 36 §2). Reads only, so the
    /// follower's role (`handz_follower`) writes nothing, not even a first salt.
    public func deletionSubjectsToFollow() async throws -> (salt: [UInt8]?, hashes: Set<String>) {
        var salt: [UInt8]?
        for try await value in try await client.query("SELECT value FROM store_meta WHERE key = 'audit_salt'", logger: logger).decode(String.self) {
            salt = Hex.decode(value)
        }
        var hashes = Set<String>()
        for try await hash in try await client.query("SELECT DISTINCT subject_hash FROM deletion_requests", logger: logger).decode(String.self) {
            hashes.insert(hash)
        }
        return (salt, hashes)
    }
}

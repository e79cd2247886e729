import Foundation
import HandzAnalyticsCore
import HandzColumnStore
import HandzLifecycle
import HandzPostgresStore
import HandzServer
import HandzStore
import HandzTestSupport
import Logging
import PostgresNIO
import Testing

/// An analysis node's copy (issue 36 §1–§2) against a real PostgreSQL on loopback and a real
/// segment store: exactly the shared store's events, in rounds, with a transaction that commits
/// late (a lower id than rows already read) neither skipped nor read twice; and a deletion the
/// shared store ran, carried out on the copy down to its files' bytes.
@Suite(.serialized) struct StoreFollowerTests {
    static let user = "5a1c3e7f-9b2d-4f6a-8c0e-1d3f5a7b9c2e"
    static let otherUser = "9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a"

    /// `count` events from id `first`, received at `receivedMs`, half of them by `user`.
    static func batch(first: UInt64, count: Int, receivedMs: Int64, user: String? = nil) -> IngestBatch {
        var rows = EventRows()
        for offset in 0..<count {
            let id = first + UInt64(offset)
            var fields: [EventRows.Field: String] = [
                .eventName: "app_open", .installID: String(format: "0f7c3a52-9d1e-4a8b-b6c2-%012d", id % 7), .sessionID: "2b6a9c1d-7e3f-4a5b-8c9d-0e1f2a3b4c5d",
                .userState: "free", .appVersion: "1.4.2", .buildNumber: "418", .platform: "iOS", .osVersion: "iOS 18.6",
                .deviceModel: "iPhone15,2", .locale: "en_US", .timezone: "UTC", .networkState: "online",
                .properties: "{\"start_type\":\"cold\",\"launch_source\":\"direct\"}",
            ]
            fields[.userID] = offset % 2 == 0 ? (user ?? otherUser) : nil
            rows.append(eventID: (0x4A, id), eventTimeMs: receivedMs - 1_000 + Int64(offset), fields: fields)
        }
        return IngestBatch(receivedTimeMs: receivedMs, keyID: "hzk_test", catalogVersion: "1.0.0", sentAtMs: nil, bodyBytes: 100, rows: rows, rejected: [])
    }

    /// The copy's event ids (its segments sealed first).
    static func copiedIDs(_ copy: SegmentEventStore) async throws -> [String] {
        _ = try copy.columns.withWriter(lockWait: .seconds(60)) { writer, _ in try copy.seal(into: writer) }
        let ids = Locked<[String]>([])
        try await copy.exportEvents(receivedFromMs: .min, toMs: .max) { event in
            if case .text(let id?) = event[.eventID] { ids.withLock { $0.append(id) } }
        }
        return ids.withLock { $0 }.sorted()
    }

    static func sharedIDs(_ server: PostgresTestServer, _ url: String) throws -> [String] {
        try server.psql(url, "SELECT event_id FROM events ORDER BY event_id").split(separator: "\n").map(String.init).sorted()
    }

    /// Rounds until `count` events were copied or 30 s passed; the sums of what they did.
    static func rounds(_ follower: StoreFollower, until count: Int) async throws -> StoreFollower.Round {
        var total = StoreFollower.Round()
        let deadline = ContinuousClock.now + .seconds(30)
        while total.copied < count && ContinuousClock.now < deadline {
            let round = try await follower.round()
            total.copied += round.copied
            total.duplicates += round.duplicates
            if total.copied < count { try await Task.sleep(for: .milliseconds(100)) }
        }
        return total
    }

    @Test("rounds copy exactly the committed events; a transaction that commits late is read once, in the round after it commits")
    func exactlyOnce() async throws {
        let server = try PostgresTestServer.shared.get()
        let url = try server.makeDatabase()
        let source = try await PostgresEventStore(url: url)
        let directory = try temporaryDirectory("handz-follow")
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = try SegmentEventStore(path: directory.appendingPathComponent("copy.sqlite").path)
        let follower = StoreFollower(source: source, copy: copy, pageSize: 1_000)

        _ = try await source.append(Self.batch(first: 1, count: 2_500, receivedMs: 1_772_000_000_000))
        // A transaction that stays open: its id is below everything stored after it.
        let settings = try PostgresConnectionSettings(url: url)
        let held = try await PostgresConnection.connect(configuration: try settings.connectionConfiguration(), id: 7, logger: Logger(label: "test"))
        let columns = EventColumn.allCases.map(\.name)
        _ = try await held.query("BEGIN", logger: Logger(label: "test"))
        _ = try await held.query(PostgresQuery(unsafeSQL: "INSERT INTO events (\(columns.joined(separator: ", "))) SELECT '00000000-0000-4000-8000-0000000000fe', "
            + columns.dropFirst().joined(separator: ", ") + " FROM events ORDER BY event_id LIMIT 1"), logger: Logger(label: "test"))
        _ = try await source.append(Self.batch(first: 10_000, count: 1_200, receivedMs: 1_772_000_100_000))

        // The horizon is the cluster's: other tests' transactions on the shared test server may
        // hold it back a moment, so rounds run until the copy holds what it can (bounded).
        let first = try await Self.rounds(follower, until: 2_500)
        #expect(first.copied == 2_500 && first.duplicates == 0, "the rows after the open transaction wait behind its id")
        #expect(try await Self.copiedIDs(copy).count == 2_500)

        _ = try await held.query("COMMIT", logger: Logger(label: "test"))
        try await held.close()
        let second = try await Self.rounds(follower, until: 1_201)
        #expect(second.copied == 1_201 && second.duplicates == 0)
        #expect(try await Self.copiedIDs(copy) == (try Self.sharedIDs(server, url)))

        // A round with nothing new copies nothing; a page read again after a crash is dropped as duplicates.
        #expect(try await follower.round().copied == 0)
        // As a crash mid-round leaves it: the round's start, a page key before everything.
        let cursor = FollowCursor(through: 0, horizon: try follower.cursor().horizon, afterXID: 0, afterEventID: "")
        try copy.tables.setMetaValue("follow_cursor", String(decoding: try JSONEncoder().encode(cursor), as: UTF8.self))
        let again = try await follower.round()
        #expect(again.copied == 0 && again.duplicates >= 3_701, "every event read again, none stored twice")
        #expect(try await Self.copiedIDs(copy).count == 3_701)
        await copy.close()
        await source.close()
    }

    @Test("receipts a transaction stored together, handed out interleaved by event id, reach the copy as one request each")
    func receiptsRegrouped() async throws {
        let server = try PostgresTestServer.shared.get()
        let url = try server.makeDatabase()
        let source = try await PostgresEventStore(url: url)
        let directory = try temporaryDirectory("handz-follow-receipts")
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = try SegmentEventStore(path: directory.appendingPathComponent("copy.sqlite").path)
        let follower = StoreFollower(source: source, copy: copy, pageSize: 500)
        _ = try await source.append(Self.batch(first: 1, count: 1, receivedMs: 1_772_000_000_000))
        // As a bulk load stores them: one transaction, 600 events of two receipts whose ids
        // alternate between the two, so (commit_xid, event_id) order interleaves them.
        let columns = EventColumn.allCases.map(\.name)
        let select = columns.map { name -> String in
            switch name {
            case "event_id": "'00000000-0000-4000-8000-' || lpad(n::text, 12, '0')"
            case "received_time_ms": "1772000050000 + (n % 2) * 1000"
            default: name
            }
        }.joined(separator: ", ")
        _ = try server.psql(url, "INSERT INTO events (\(columns.joined(separator: ", "))) SELECT \(select) FROM events, generate_series(1, 600) AS n")
        let copied = try await Self.rounds(follower, until: 601)
        #expect(copied.copied == 601 && copied.duplicates == 0)
        #expect(try await Self.copiedIDs(copy) == (try Self.sharedIDs(server, url)))
        // The first receipt, then the page of 499 and the page of 101, each two receipts.
        let stats = try await copy.stats(fromMs: .min, toMs: .max)
        #expect(stats.storedEvents == 601 && stats.requests == 5, "one request per receipt and page, not one per event")
        await copy.close()
        await source.close()
    }

    @Test("a deletion the shared store ran is carried out on the copy: no byte of the user id left in its files, the same subject hash in its ledger")
    func deletionReachesTheCopy() async throws {
        let server = try PostgresTestServer.shared.get()
        let url = try server.makeDatabase()
        let source = try await PostgresEventStore(url: url)
        let directory = try temporaryDirectory("handz-follow-deletion")
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = try SegmentEventStore(path: directory.appendingPathComponent("copy.sqlite").path)
        let follower = StoreFollower(source: source, copy: copy)
        _ = try await source.append(Self.batch(first: 1, count: 40, receivedMs: 1_772_000_000_000, user: Self.user))
        _ = try await source.append(Self.batch(first: 100, count: 40, receivedMs: 1_772_000_100_000))
        // As in `exactlyOnce`: other tests' transactions on the shared server may hold the
        // horizon back a moment, so rounds run until the copy holds all 80 (bounded).
        #expect(try await Self.rounds(follower, until: 80).copied == 80)
        #expect(try await follower.applyDeletions(owner: "test") == 0)
        #expect(!StoredBytes.filesHolding([Self.user], under: directory).isEmpty, "the copy holds the user before the request")

        // The shared store runs the request: its ledger keeps only the hash.
        let (request, _) = try await source.requestDeletion(userID: Self.user, nowMs: 1_772_000_200_000)
        _ = try await DeletionWorker(store: source, lake: nil, owner: "ingest-node", clock: { 1_772_000_200_000 }).runUntilIdle()
        #expect(try server.psql(url, "SELECT COUNT(*) FROM deletion_requests WHERE user_id IS NOT NULL") == "0")

        try await follower.round()
        #expect(try await follower.applyDeletions(owner: "test") == 1)
        #expect(try await follower.applyDeletions(owner: "test") == 0, "each request is looked for once")
        _ = try copy.columns.withWriter(lockWait: .seconds(60)) { writer, _ in try copy.seal(into: writer) }
        #expect(StoredBytes.filesHolding([Self.user, Self.user.uppercased()], under: directory).isEmpty, "no file of the copy holds the id")
        let local = try await copy.deletionRequests(limit: 10)
        #expect(local.map(\.subjectHash) == [request.subjectHash] && local.first?.state == .completed)
        // The other user's events, and the forgotten user's (now anonymous) events, are all still counted.
        #expect(try await Self.copiedIDs(copy).count == 80)
        await copy.close()
        await source.close()
    }
}

import Foundation
import HandzSQLite
import HandzTestSupport
import Testing

/// The store runs out of space under load (issue 18 §7): batches get 503 with `Retry-After`,
/// nothing acknowledged is lost, nothing refused is half-stored, and writes resume once there is
/// space again. A full disk is stood in for by the store's quota (`--max-db-bytes`, SQLite's
/// `max_page_count`): SQLite reports both as `SQLITE_FULL` and the writer takes the same path (roll
/// back, refuse the commit's batches). Against the real `handz-analytics serve`; bounded loops.
@Suite(.serialized) struct StoreFullTests {
    /// Sends batches of 100 new events (at most `batches`) until three are refused; each answer
    /// is a 200 with all 100 accepted or a 503 `store_unavailable` with `Retry-After`. Returns the
    /// events acknowledged and the refused batches' numbers.
    static func fill(_ client: IngestHTTPClient, batches: Int) async throws -> (acknowledged: Int, refused: [Int]) {
        var acknowledged = 0
        var refused: [Int] = []
        for batch in 0..<batches {
            let answer = try await client.send(events: ServerProcessTests.events(100, offset: batch * 100))
            if answer.status == 200 {
                #expect(answer.json?["accepted"] as? Int == 100)
                acknowledged += 100
                continue
            }
            #expect(answer.status == 503, "\(answer.body)")
            #expect(answer.body.contains("store_unavailable"))
            #expect(Int(answer.headers["retry-after"] ?? "") ?? 0 >= 1)
            refused.append(batch)
            if refused.count == 3 { break }
        }
        return (acknowledged, refused)
    }

    @Test("a full store answers 503 with Retry-After, keeps every acknowledged event and nothing else, and recovers once space returns")
    func fullStore() async throws {
        let directory = try temporaryDirectory("handz-store-full")
        defer { try? FileManager.default.removeItem(at: directory) }
        // The SQLite log's quota (`--max-db-bytes`); the segment engine's full disk is SegmentDiskFullTests'.
        let unlimited = ServerProcessTests.sqliteLog + ["--install-events-per-second", "100000", "--install-burst", "100000"]
        var server = try ServerProcess(directory: directory, arguments: unlimited + ["--max-db-bytes", "1048576"])
        var client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())

        // Load until the store is full: 100 new events a batch, at most 200 batches (20,000
        // events; 1 MiB holds about 2,000).
        let (acknowledged, refused) = try await Self.fill(client, batches: 200)
        try #require(refused.count == 3, "the store never filled")
        #expect(acknowledged >= 500, "the quota left room for some batches")
        // The server is up and says it cannot write.
        let health = try await client.send(body: [], path: "/health", method: "GET", encoding: nil)
        #expect(health.status == 503 && health.body.contains("\"store_writable\":false"))
        #expect(server.stop() == 0, "graceful shutdown while full")

        // Every acknowledged event is stored, and no event of a refused batch.
        let path = directory.appendingPathComponent("handz-events.sqlite").path
        #expect(try SQLiteDatabase(path: path).scalar("SELECT COUNT(*) FROM events") == Int64(acknowledged))

        // Space returns (a larger quota): the refused batches are accepted, each event once.
        server = try ServerProcess(directory: directory, arguments: unlimited + ["--max-db-bytes", "16777216"])
        defer { server.stop() }
        client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())
        for batch in refused {
            let answer = try await client.send(events: ServerProcessTests.events(100, offset: batch * 100))
            #expect(answer.status == 200 && answer.json?["accepted"] as? Int == 100, "\(answer.body)")
        }
        #expect(try SQLiteDatabase(path: path).scalar("SELECT COUNT(*) FROM events") == Int64(acknowledged + 300))
    }
}

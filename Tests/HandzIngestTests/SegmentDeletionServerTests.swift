import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HandzAnalyticsCore
import HandzSigning
import HandzTestSupport
import Testing

/// Forget-user and retention on a real `serve --engine segments` (issue 34 §3): a deletion asked
/// over HTTP completes while the user's events sit in segments and chunks, and afterwards no file
/// of the store holds the user's id; the CLI's `forget-user` and `purge` work on the same store
/// once the server stopped. Every wait is bounded; every server is stopped.
@Suite(.serialized) struct SegmentDeletionServerTests {
    static let user = "6a1d0c3e-2b4f-4c5d-8e6f-7a8b9c0d1e2f"
    static let otherUser = "7b2e1d4f-3c5a-4d6e-9f70-8b9cad0e1f30"

    /// `count` events of `user` on its own install and session, ids from `offset`.
    static func events(_ count: Int, offset: Int, user: String, install: String) -> [String] {
        (0..<count).map { index in
            var builder = EventBuilder("app_open", seed: 3)
            builder["event_id"] = String(format: "0190a5e3-6c1d-7b3e-9f00-%012x", offset + index)
            builder["user_id"] = user
            builder["user_state"] = "free"
            builder["install_id"] = install
            builder["session_id"] = String(format: "5e551020-0000-4000-8000-%012d", offset / 100)
            return builder.json
        }
    }

    @Test("a deletion over HTTP on the segment engine completes with the user's events sealed and unsealed; no file keeps the id; the CLI exports a lake, forgets (the lake too) and purges the stopped store")
    func forgetOverHTTPThenByCommand() async throws {
        let directory = try temporaryDirectory("handz-segment-forget")
        defer { try? FileManager.default.removeItem(at: directory) }
        let ingest = IngestionKey.generate(scopes: [.ingest]), admin = IngestionKey.generate(scopes: [.admin])
        try KeysFile(keys: [ingest, admin]).save(path: directory.appendingPathComponent("handz-keys.json").path)
        let db = directory.appendingPathComponent("handz-events.sqlite").path
        let install = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c6e", otherInstall = "2b3c4d5e-6f70-4b8c-9d0e-1f2a3b4c5d7f"

        // Sealed every second; the last batch is sent after a seal, so some events may still wait.
        let server = try ServerProcess(directory: directory, arguments: ["--engine", "segments", "--column-seal-interval", "1", "--deletion-interval", "1"])
        var client = IngestHTTPClient(baseURL: server.baseURL, key: ingest)
        for batch in 0..<3 {
            #expect(try await client.send(events: Self.events(40, offset: batch * 100, user: Self.user, install: install)).status == 200)
            #expect(try await client.send(events: Self.events(10, offset: 10_000 + batch * 100, user: Self.otherUser, install: otherInstall)).status == 200)
            try await Task.sleep(for: .milliseconds(1_200))
        }
        #expect(try await client.send(events: Self.events(5, offset: 900, user: Self.user, install: install)).status == 200)
        // /health names the engine, a value the published contract lists.
        let health = try await client.send(body: [], path: "/health", method: "GET", encoding: nil, timestamp: Int64(Date().timeIntervalSince1970))
        #expect(health.json?["store"] as? String == "segments")
        let (contract, _) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("openapi.json"))
        let schemas = ((try JSONSerialization.jsonObject(with: contract) as? [String: Any])?["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let storeValues = (((schemas?["Health"] as? [String: Any])?["properties"] as? [String: Any])?["store"] as? [String: Any])?["enum"] as? [String]
        #expect(storeValues?.contains("segments") == true)
        client.key = admin
        var timestamp = Int64(Date().timeIntervalSince1970)
        func nextTimestamp() -> Int64 { timestamp += 1; return timestamp }  // admin signatures are single-use
        let accepted = try await client.send(body: [], path: "/v1/users/\(Self.user)", method: "DELETE", encoding: nil, timestamp: nextTimestamp())
        #expect(accepted.status == 202)
        let id = try #require(accepted.json?["request_id"] as? String)
        var status: [String: Any] = [:]
        for _ in 0..<120 where status["state"] as? String != "completed" {
            try await Task.sleep(for: .milliseconds(250))
            status = try await client.send(body: [], path: "/v1/deletions/\(id)", method: "GET", encoding: nil, timestamp: nextTimestamp()).json ?? [:]
        }
        #expect(status["state"] as? String == "completed")
        #expect(status["events_deidentified"] as? Int == 125 && status["sessions_deidentified"] as? Int == 4 && status["installs_deidentified"] as? Int == 1)
        #expect(server.stop(signal: SIGTERM) == 0)

        // Every event still counted; no byte of the user's id or the re-keyed ids anywhere.
        let stats = try CommandRunner.run(["stats", "--db", db])
        #expect((try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])?["stored_events"] as? Int == 155)
        // The SQLite file keeps the install's first-seen row (a random per-install id, HandzStore's
        // `InstallFirstSeen`), never the user's id.
        let sessions = [0, 1, 2, 9].map { String(format: "5e551020-0000-4000-8000-%012d", $0) }
        #expect(StoredBytes.filesHolding([Self.user], under: directory) == [])
        #expect(StoredBytes.filesHolding([install] + sessions, under: directory).filter { !$0.hasPrefix("handz-events.sqlite") } == [])
        #expect(!StoredBytes.filesHolding([Self.otherUser], under: directory).isEmpty, "the other user's events keep their id")

        // The stopped store, by command: exported to a lake, the other user forgotten (the lake
        // rewritten too), then a purge of what is older than a day.
        let lake = directory.appendingPathComponent("lake").path
        let day = 86_400_000 * (Int64(Date().timeIntervalSince1970 * 1000) / 86_400_000)
        let range = ["--from", Self.iso(day - 86_400_000), "--to", Self.iso(day + 2 * 86_400_000)]
        let exported = try CommandRunner.run(["export", "lake", "--db", db, "--out", lake] + range)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect((try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])?["rows"] as? Int == 155)
        #expect(!StoredBytes.filesHolding([Self.otherUser], under: URL(fileURLWithPath: lake)).isEmpty)
        let forgot = try CommandRunner.run(["forget-user", "--db", db, "--lake", lake, Self.otherUser])
        #expect(forgot.status == 0, "\(forgot.stderr)")
        #expect((try JSONSerialization.jsonObject(with: Data(forgot.stdout.utf8)) as? [String: Any])?["events_deidentified"] as? Int == 30)
        #expect((try JSONSerialization.jsonObject(with: Data(forgot.stdout.utf8)) as? [String: Any])?["state"] as? String == "completed")
        #expect(StoredBytes.filesHolding([Self.otherUser], under: directory) == [], "the store and the lake")
        #expect(StoredBytes.filesHolding([otherInstall], under: directory).filter { !$0.hasPrefix("handz-events.sqlite") } == [])
        let purged = try CommandRunner.run(["purge", "--db", db, "--older-than", "1d"])
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(purged.stdout.contains("\"events\":0"), "everything was received today")
    }

    static func iso(_ ms: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}

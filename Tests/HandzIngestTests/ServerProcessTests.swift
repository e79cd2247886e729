import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HandzAnalyticsCore
import HandzIngest
import HandzSigning
import HandzSQLite
import HandzTestSupport
import Testing

/// The real `handz-analytics serve` process on loopback: HTTP, signals, crashes, restarts.
/// Every wait is bounded; every server is stopped.
@Suite(.serialized) struct ServerProcessTests {
    static let template: String = {
        var builder = EventBuilder("app_open", seed: 1)
        builder["event_id"] = "EVENT_ID"
        return builder.json
    }()

    /// `count` valid events with distinct, predictable event_ids.
    static func events(_ count: Int, offset: Int) -> [String] {
        (0..<count).map { index in
            template.replacingOccurrences(of: "EVENT_ID", with: String(format: "0190a5e2-6c1d-7b3e-9f00-%012x", offset + index))
        }
    }

    /// The SQLite log: these tests count the stored rows with SQL, beside and after the server.
    /// The segment engine's own process tests are `SegmentCrashTests` and `SegmentDiskFullTests`.
    static let sqliteLog = ["--engine", "sqlite"]

    func count(_ directory: URL, _ sql: String) throws -> Int64 {
        try SQLiteDatabase(path: directory.appendingPathComponent("handz-events.sqlite").path).scalar(sql) ?? -1
    }

    @Test("first start prints the database and a new key; health, metrics and a signed batch work over HTTP")
    func startAndServe() async throws {
        let directory = try temporaryDirectory("handz-serve")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(directory: directory)
        defer { server.stop() }
        let database = "database: \(directory.resolvingSymlinksInPath().path)/handz-events.sqlite"
        #expect(server.printed.contains(database) || server.printed.contains("database: \(directory.path)/handz-events.sqlite"))
        #expect(server.printed.contains("secret: "))
        let client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())
        let answer = try await client.send(events: Self.events(5, offset: 0))
        #expect(answer.status == 200)
        #expect(answer.json?["accepted"] as? Int == 5)
        let (health, _) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("health"))
        #expect(String(decoding: health, as: UTF8.self).contains("\"store_writable\":true"))
        // Retention and deletion ages (issue 14 §4) appear once the lifecycle service has measured
        // them, just after start: scraped until then (at most 100 × 100 ms).
        var text = ""
        for _ in 0..<100 where !text.contains("handz_deletions_pending") {
            if !text.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
            let (metrics, _) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("metrics"))
            text = String(decoding: metrics, as: UTF8.self)
        }
        #expect(text.contains("handz_events_total{outcome=\"accepted\"} 5"))
        #expect(text.contains("handz_requests_total{status=\"200\"}"))
        #expect(text.contains("handz_deletions_pending 0"))
        #expect(text.contains("handz_oldest_pending_deletion_timestamp_seconds 0"))
        #expect(text.contains("handz_oldest_event_timestamp_seconds"))
        #expect(!text.contains(try server.ingestKey().id))
    }

    @Test("kill -9 during load, restart, re-send: every acknowledged event is stored exactly once")
    func crashAndRecover() async throws {
        let directory = try temporaryDirectory("handz-crash")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(directory: directory, arguments: Self.sqliteLog + ["--install-events-per-second", "100000", "--install-burst", "100000"])
        let client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())
        let batches = (0..<120).map { Self.events(50, offset: $0 * 50) }
        let acknowledged = Locked<Set<Int>>([])
        // Eight senders; the server is killed while they run.
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<8 {
                group.addTask {
                    for index in stride(from: sender, to: batches.count, by: 8) {
                        guard let answer = try? await client.send(events: batches[index]) else { continue }
                        if answer.status == 200 { acknowledged.withLock { _ = $0.insert(index) } }
                    }
                }
            }
            group.addTask {
                for _ in 0..<200 where acknowledged.withLock({ $0.count }) < 20 { try? await Task.sleep(for: .milliseconds(10)) }
                server.stop(signal: SIGKILL)
            }
        }
        let acked = acknowledged.withLock { $0 }
        #expect(acked.count >= 20)
        #expect(acked.count < batches.count)
        // Everything acknowledged survived the crash.
        #expect(try count(directory, "SELECT COUNT(*) FROM events") >= Int64(acked.count * 50))

        let restarted = try ServerProcess(directory: directory, arguments: Self.sqliteLog + ["--install-events-per-second", "100000", "--install-burst", "100000"])
        defer { restarted.stop() }
        let retry = IngestHTTPClient(baseURL: restarted.baseURL, key: try restarted.ingestKey())
        var duplicates = 0
        for index in 0..<batches.count {
            let answer = try await retry.send(events: batches[index])
            #expect(answer.status == 200)
            duplicates += answer.json?["duplicates"] as? Int ?? 0
        }
        #expect(duplicates >= acked.count * 50)
        #expect(try count(directory, "SELECT COUNT(*) FROM events") == Int64(batches.count * 50))
        #expect(try count(directory, "SELECT COUNT(DISTINCT event_id) FROM events") == Int64(batches.count * 50))
    }

    @Test("SIGTERM finishes in-flight batches, commits them, and exits 0")
    func gracefulShutdown() async throws {
        let directory = try temporaryDirectory("handz-term")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(directory: directory, arguments: Self.sqliteLog + ["--install-events-per-second", "100000", "--install-burst", "100000"])
        let client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())
        let acknowledged = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<4 {
                group.addTask {
                    for index in 0..<30 {
                        guard let answer = try? await client.send(events: Self.events(100, offset: (sender * 30 + index) * 100)), answer.status == 200 else { return }
                        acknowledged.withLock { $0 += 100 }
                    }
                }
            }
            group.addTask {
                for _ in 0..<200 where acknowledged.withLock({ $0 }) < 1_000 { try? await Task.sleep(for: .milliseconds(10)) }
                #expect(server.stop(signal: SIGTERM) == 0)
            }
        }
        #expect(try count(directory, "SELECT COUNT(*) FROM events") >= Int64(acknowledged.withLock { $0 }))
        #expect(try count(directory, "SELECT COUNT(*) FROM batches WHERE accepted > 0") * 100 == (try count(directory, "SELECT COUNT(*) FROM events")))
    }

    @Test("overload gets 429 with Retry-After, never a crash")
    func overload() async throws {
        let directory = try temporaryDirectory("handz-overload")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(directory: directory, arguments: ["--max-concurrent-requests", "2", "--install-events-per-second", "100000", "--install-burst", "100000"])
        defer { server.stop() }
        let client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())
        let batches = (0..<32).map { Self.events(1_000, offset: $0 * 1_000) }
        let statuses = await withTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<32 {
                group.addTask {
                    let answer = try? await client.send(events: batches[index])
                    return (answer?.status ?? -1, answer?.headers["retry-after"])
                }
            }
            return await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0.0 == 200 || $0.0 == 429 })
        #expect(statuses.contains { $0.0 == 429 }, "\(statuses.map(\.0))")
        #expect(statuses.filter { $0.0 == 429 }.allSatisfy { $0.1 != nil })
        #expect(server.process.isRunning)
        // Memory stayed bounded: the in-flight limit caps what is held at once.
        let status = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)
        let rssKiB = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        #expect(rssKiB > 0 && rssKiB < 1_000_000)
        let (health, _) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("health"))
        #expect(String(decoding: health, as: UTF8.self).contains("\"status\":\"ok\""))
    }

    @Test("a declared oversized body is refused with 413 before it is sent, and the connection closes")
    func declaredTooLarge() throws {
        let directory = try temporaryDirectory("handz-413")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(directory: directory)
        defer { server.stop() }
        let reply = try RawHTTP.exchange(port: server.port, request: "POST /v1/batch HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n")
        #expect(reply.hasPrefix("HTTP/1.1 413"))
        #expect(reply.contains("payload_too_large"))
    }

    @Test("revoking a key takes effect on the running server; SIGHUP reloads the catalog")
    func liveKeyAndCatalogChanges() async throws {
        let directory = try temporaryDirectory("handz-live")
        defer { try? FileManager.default.removeItem(at: directory) }
        let catalog = directory.appendingPathComponent("catalog")
        try FileManager.default.copyItem(atPath: RepositoryCatalog.directory, toPath: catalog.path)
        let server = try ServerProcess(directory: directory, arguments: Self.sqliteLog + ["--catalog", catalog.path])
        defer { server.stop() }
        let key = try server.ingestKey()
        let client = IngestHTTPClient(baseURL: server.baseURL, key: key)
        #expect(try await client.send(events: Self.events(1, offset: 0)).status == 200)

        let manifest = catalog.appendingPathComponent("catalog.yaml")
        // Whatever the shipped version is, the reloaded one is 9.x (a version no release has).
        try (try String(contentsOf: manifest, encoding: .utf8)).replacing(/catalog_version: "\d+\./, with: "catalog_version: \"9.")
            .write(to: manifest, atomically: true, encoding: .utf8)
        kill(server.process.processIdentifier, SIGHUP)
        var version = ""
        for _ in 0..<100 {
            let (health, _) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("health"))
            version = String(decoding: health, as: UTF8.self)
            if version.contains("\"catalog_version\":\"9.") { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(version.contains("\"catalog_version\":\"9."))
        #expect(try await client.send(events: Self.events(1, offset: 1)).status == 200)
        #expect(try count(directory, "SELECT COUNT(DISTINCT catalog_version) FROM events") == 2)

        let revoke = try CommandRunner.run(["keys", "revoke", key.id, "--keys", directory.appendingPathComponent("handz-keys.json").path])
        #expect(revoke.status == 0)
        var status = 0
        for _ in 0..<60 {
            status = try await client.send(events: Self.events(1, offset: 2)).status
            if status == 403 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(status == 403)
    }
}

/// One raw HTTP/1.1 exchange over a loopback socket, for requests URLSession will not make
/// (a declared body that is never sent).
enum RawHTTP {
    static func exchange(port: Int, request: String, timeout: Int = 10) throws -> String {
        let socket = LoopbackSockets.connect(port: port)
        guard socket >= 0 else { throw POSIXError(.ECONNREFUSED) }
        defer { close(socket) }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        _ = request.withCString { send(socket, $0, strlen($0), 0) }
        var reply = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let received = recv(socket, &buffer, buffer.count, 0)
            if received <= 0 { break }
            reply += buffer[0..<received]
        }
        return String(decoding: reply, as: UTF8.self)
    }
}

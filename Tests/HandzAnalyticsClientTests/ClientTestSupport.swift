import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HandzAnalyticsClient
import HandzSigning
import HandzSQLite
import HandzTestSupport

/// A server directory with an ingest key and an admin key, the access log, and helpers to read
/// what the server stored and when requests arrived.
final class ServerWorld: @unchecked Sendable {
    let directory: URL
    let ingest = IngestionKey.generate(scopes: [.ingest])
    let admin = IngestionKey.generate(scopes: [.admin])
    var server: ServerProcess?
    let port: Int

    init(port: Int? = nil) throws {
        directory = try temporaryDirectory("handz-client")
        try KeysFile(keys: [ingest, admin]).save(path: directory.appendingPathComponent("handz-keys.json").path)
        self.port = port ?? LoopbackSockets.freePort()
    }

    deinit {
        // SIGTERM, so the server exits normally and an instrumented build writes its coverage
        // profile (SIGKILL leaves none); SIGKILL still follows if it has not exited in 5 s.
        server?.stop(signal: SIGTERM, timeout: 5)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the server with `arguments`, and with `clientConfig` (JSON) as the settings it
    /// serves its clients when given.
    func start(_ arguments: [String] = [], clientConfig: String? = nil) throws {
        var arguments = arguments
        if let clientConfig {
            let path = directory.appendingPathComponent("client-config.json")
            try Data(clientConfig.utf8).write(to: path)
            arguments += ["--client-config", path.path]
        }
        // The SQLite log: the client's tests read what the server stored with SQL while it runs.
        server = try ServerProcess(directory: directory, arguments: ["--engine", "sqlite", "--access-log", accessLogPath] + arguments, port: port)
    }

    /// Served settings that leave the client's flush timer out of the way (an hour, not the
    /// default 30 s), so a test on a ``ManualClientClock`` sees only the retry it is about.
    static let hourlyFlush = #"{"flush_interval_seconds": 3600}"#

    var accessLogPath: String { directory.appendingPathComponent("access.log").path }
    var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// (arrival ms, path, status) of every request so far.
    func requests() -> [(timeMs: Int64, path: String, status: Int)] {
        guard let text = try? String(contentsOfFile: accessLogPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return ((object["time_ms"] as? NSNumber)?.int64Value ?? 0, object["path"] as? String ?? "", object["status"] as? Int ?? 0)
        }
    }

    func batches() -> [(timeMs: Int64, status: Int)] { requests().filter { $0.path == "/v1/batch" }.map { ($0.timeMs, $0.status) } }

    func scalar(_ sql: String) throws -> Int64 {
        try SQLiteDatabase(path: directory.appendingPathComponent("handz-events.sqlite").path).scalar(sql) ?? -1
    }

    func admin(_ path: String) async throws -> Int {
        try await IngestHTTPClient(baseURL: endpoint, key: admin).send(body: [], path: path, encoding: nil).status
    }

    /// When the request to `path` that answered `status` arrived, first to last (ms).
    func arrivals(_ path: String, status: Int) -> [Int64] { requests().filter { $0.path == path && $0.status == status }.map(\.timeMs) }

    func configuration(queue: URL) -> ClientConfiguration {
        var configuration = ClientConfiguration(endpoint: endpoint, keyID: ingest.id, secret: ingest.secret, queuePath: queue.path)
        configuration.backoffBase = 0.2
        configuration.flushInterval = 0.5
        return configuration
    }

}

/// Polls `condition` every 50 ms until it holds or `timeout` passes: for an outcome that comes
/// (delivery, a count reached), never to let time pass before asserting that nothing happened —
/// the client's time is moved by a ``ManualClientClock`` for that.
func eventually(timeout: TimeInterval = 20, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return try condition()
}

/// A loopback listener that accepts connections and counts them; it never answers (an upload to
/// it stays in flight until the client cancels) or, with `closeImmediately`, hangs up at once.
final class SilentListener: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var accepted = 0
    private var connections: [Int32] = []

    private let closeImmediately: Bool

    init(closeImmediately: Bool = false) {
        self.closeImmediately = closeImmediately
        let (listening, port) = LoopbackSockets.listening()
        self.port = port
        fd = listening
        let thread = Thread { [self] in
            while true {
                let connection = accept(listening, nil, nil)
                if connection < 0 { return }
                if self.closeImmediately {
                    // Counted before the hang-up: a client that saw its connection fail finds it
                    // counted.
                    lock.withLock { accepted += 1 }
                    close(connection)
                } else {
                    lock.withLock { accepted += 1; connections.append(connection) }
                }
            }
        }
        thread.start()
    }

    var connectionCount: Int { lock.withLock { accepted } }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        lock.withLock { for connection in connections { close(connection) } }
    }
}

/// A loopback HTTP/1.1 server that reads each request whole and answers every one with the same
/// canned response — a captive portal's page, a proxy's JSON. Counts the batch uploads
/// (`POST …/v1/batch`) it answered; the client's settings fetches are answered but not counted.
final class CannedHTTPServer: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var batchesAnswered = 0

    init(status: Int = 200, contentType: String, body: String) {
        let (listening, port) = LoopbackSockets.listening()
        self.port = port
        fd = listening
        let response = Array("HTTP/1.1 \(status) OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)
        let thread = Thread { [self] in
            while true {
                let connection = accept(listening, nil, nil)
                if connection < 0 { return }
                let requestLine = Self.readRequest(connection)
                let isBatch = requestLine.hasPrefix("POST ") && requestLine.contains("/v1/batch")
                _ = response.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(connection)
                if isBatch { lock.withLock { batchesAnswered += 1 } }
            }
        }
        thread.start()
    }

    /// Reads the head and a `Content-Length` body (bounded: 1 MB, a 5 s receive timeout) and
    /// returns the request line ("" when none arrived).
    @discardableResult
    static func readRequest(_ connection: Int32) -> String {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while received.count < 1_000_000 {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += chunk[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            guard let headEnd = text.range(of: "\r\n\r\n") else { continue }
            let head = text[..<headEnd.lowerBound].lowercased()
            let declared = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count >= text.utf8.distance(from: text.utf8.startIndex, to: headEnd.upperBound) + declared { break }
        }
        let text = String(decoding: received, as: UTF8.self)
        return text.range(of: "\r\n").map { String(text[..<$0.lowerBound]) } ?? ""
    }

    var batchRequestCount: Int { lock.withLock { batchesAnswered } }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}

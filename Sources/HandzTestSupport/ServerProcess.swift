import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HandzCompression
import HandzSigning

/// A real `handz-analytics serve` process on a loopback port, in its own directory, for tests
/// that need the actual server (signals, kill -9, restarts). A ``ChildProcess``: nothing inherited
/// but its standard descriptors; what it prints goes to a file beside the temporary directory's
/// other files (not into `directory`, which tests list), read back by ``printed``.
public final class ServerProcess: @unchecked Sendable {
    public let directory: URL
    public let process: ChildProcess
    public private(set) var port = 0
    private let outputPath: String

    /// Starts the server and waits (bounded) until it prints that it listens.
    public init(directory: URL, arguments: [String] = [], port: Int = 0, environment: [String: String] = [:], timeout: TimeInterval = 60) throws {
        self.directory = directory
        outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("handz-server-\(UUID().uuidString).log").path
        let catalog = arguments.contains("--catalog") ? [] : ["--catalog", RepositoryCatalog.directory]
        process = try ChildProcess(executable: CommandRunner.product("handz-analytics").path,
                                   arguments: ["serve"] + catalog + ["--port", String(port), "--log-level", "warning"] + arguments,
                                   workingDirectory: directory.path, standardOutput: .file(outputPath), standardError: .standardOutput,
                                   environment: environment)
        // The event is the line `listening on http://127.0.0.1:PORT`, or the process ending;
        // looked for every 20 ms, at most `timeout` seconds.
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = printed.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
               let port = Int(line.split(separator: ":").last ?? "") {
                self.port = port
                return
            }
            if process.wait(timeout: 0.02) { throw StartFailure(output: printed) }
        }
        process.terminate(grace: 5)
        throw StartFailure(output: printed)
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public let output: String
        public var description: String { "server did not start:\n\(output)" }
    }

    /// Everything the server printed so far (standard output and error).
    public var printed: String { String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self) }

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The key the server created on first start (from its keys file).
    public func ingestKey() throws -> IngestionKey {
        try KeysFile.load(path: directory.appendingPathComponent("handz-keys.json").path).keys.first { $0.scopes.contains(.ingest) }!
    }

    /// Sends a signal and waits (bounded) for the process to exit; returns its status (the exit
    /// code, or the signal that ended it), or nil when it had to be killed with SIGKILL after
    /// `timeout` seconds.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 30) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        process.send(signal)
        if !process.wait(timeout: timeout) {
            process.send(SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.send(SIGKILL) }
        unlink(outputPath)
    }
}

/// A minimal client for the ingestion API: signs, compresses and sends with URLSession.
public struct IngestHTTPClient: Sendable {
    /// Many connections per host, so tests can put the server under concurrent load.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        return URLSession(configuration: configuration)
    }()

    public var baseURL: URL
    public var key: IngestionKey

    public init(baseURL: URL, key: IngestionKey) {
        self.baseURL = baseURL
        self.key = key
    }

    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: String
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] }
    }

    /// The signed request line of `method` and `path` (which may carry `?query`).
    public static func target(method: String, path: String) -> RequestSignature.Target {
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return RequestSignature.Target(method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : "")
    }

    /// POSTs `events` (JSON texts) as one signed gzip batch.
    public func send(events: [String], gzip: Bool = true, timestamp: Int64? = nil) async throws -> Answer {
        let body = Array("{\"events\":[\(events.joined(separator: ","))]}".utf8)
        return try await send(body: gzip ? Gzip.compress(body) : body, encoding: gzip ? "gzip" : nil, timestamp: timestamp)
    }

    /// POSTs raw bytes, signed (HZ2 over `method`, `path` with its query, and `body`, or the
    /// given `scheme`) unless `authorization` is given.
    public func send(body: [UInt8], path: String = "/v1/batch", method: String = "POST", encoding: String? = "gzip",
                     contentType: String = "application/json", timestamp: Int64? = nil, authorization: String? = nil,
                     scheme: RequestSignature.Scheme = .hz2) async throws -> Answer {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = Data(body)
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        if let encoding { request.setValue(encoding, forHTTPHeaderField: "Content-Encoding") }
        let ts = timestamp ?? Int64(Date().timeIntervalSince1970)
        request.setValue(authorization ?? RequestSignature.authorization(scheme: scheme, keyID: key.id, secret: key.secret, timestamp: ts,
                                                                         target: Self.target(method: method, path: path), body: body),
                         forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 30
        let (data, response) = try await Self.session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers[String(describing: name).lowercased()] = String(describing: value) }
        return Answer(status: http.statusCode, headers: headers, body: String(decoding: data, as: UTF8.self))
    }
}

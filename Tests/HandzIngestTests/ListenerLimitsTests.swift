import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HandzServer
import HandzTestSupport
import Testing

/// The listener's own limits (issue 18 §4, §6): at most `--max-connections` open connections,
/// and `/metrics` only where `--metrics-listen` puts it. Against the real `handz-analytics serve`
/// on loopback; every wait is bounded.
@Suite(.serialized) struct ListenerLimitsTests {
    static let health = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    static let metrics = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

    @Test("where /metrics is served", arguments: [
        (nil, "127.0.0.1", MetricsPlacement.ingestPort),
        (nil, "localhost", .ingestPort),
        (nil, "0.0.0.0", .address(host: "127.0.0.1", port: 9464)),
        (nil, "10.0.0.5", .address(host: "127.0.0.1", port: 9464)),
        ("ingest", "0.0.0.0", .ingestPort),
        ("127.0.0.1:9100", "0.0.0.0", .address(host: "127.0.0.1", port: 9100)),
        ("[::1]:0", "127.0.0.1", .address(host: "[::1]", port: 0)),
    ] as [(String?, String, MetricsPlacement)])
    func placement(_ option: String?, _ host: String, _ expected: MetricsPlacement) {
        #expect(MetricsPlacement.resolve(option, ingestHost: host) == expected)
    }

    @Test("not a placement", arguments: ["9100", ":9100", "127.0.0.1:", "127.0.0.1:70000", "metrics"])
    func notAPlacement(_ option: String) {
        #expect(MetricsPlacement.resolve(option, ingestHost: "127.0.0.1") == nil)
    }

    @Test("--metrics-listen moves /metrics off the ingest port to its own listener")
    func metricsOnTheirOwnAddress() throws {
        let directory = try temporaryDirectory("handz-metrics")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(directory: directory, arguments: ["--metrics-listen", "127.0.0.1:0"])
        defer { server.stop() }
        let deadline = Date().addingTimeInterval(20)
        var metricsPort: Int?
        while metricsPort == nil && Date() < deadline {
            metricsPort = server.printed.split(separator: "\n").first { $0.hasPrefix("metrics on http://127.0.0.1:") }
                .flatMap { Int($0.dropFirst("metrics on http://127.0.0.1:".count).prefix { $0.isNumber }) }
            if metricsPort == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        let port = try #require(metricsPort, "\(server.printed)")
        #expect(try RawHTTP.exchange(port: server.port, request: Self.metrics).hasPrefix("HTTP/1.1 404"))
        #expect(try RawHTTP.exchange(port: server.port, request: Self.health).hasPrefix("HTTP/1.1 200"))
        let scraped = try RawHTTP.exchange(port: port, request: Self.metrics)
        #expect(scraped.hasPrefix("HTTP/1.1 200"))
        #expect(scraped.contains("handz_rate_limited_total"))
        // The metrics listener serves metrics only.
        #expect(try RawHTTP.exchange(port: port, request: Self.health).hasPrefix("HTTP/1.1 404"))
    }

    @Test("past --max-connections a new connection waits unserved; it is served as soon as held ones close")
    func connectionCap() throws {
        let directory = try temporaryDirectory("handz-max-connections")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(directory: directory, arguments: ["--max-connections", "20", "--idle-timeout", "60"])
        defer { server.stop() }
        // Below the cap a request is served at once.
        #expect(try RawHTTP.exchange(port: server.port, request: Self.health).hasPrefix("HTTP/1.1 200"))
        // Twenty idle connections take every slot (each one accepted: the server reads from it).
        var held = (0..<20).map { _ in LoopbackSockets.connect(port: server.port) }
        defer { for fd in held where fd >= 0 { close(fd) } }
        try #require(held.allSatisfy { $0 >= 0 })
        Thread.sleep(forTimeInterval: 0.5)
        // The twenty-first is left in the backlog: no answer within two seconds.
        #expect(try RawHTTP.exchange(port: server.port, request: Self.health, timeout: 2) == "")
        // Closing five held connections frees their slots: the next request is served.
        for index in 0..<5 { close(held[index]); held[index] = -1 }
        let started = Date()
        let answer = try RawHTTP.exchange(port: server.port, request: Self.health, timeout: 10)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        #expect(Date().timeIntervalSince(started) < 5)
    }
}

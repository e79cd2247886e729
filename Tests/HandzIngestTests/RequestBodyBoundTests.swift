import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HandzTestSupport
import Testing

/// Every route bounds its request body (issue 32 §1): a route that takes none refuses one with 413
/// and closes the connection, and a route that takes one answers 408 when it has not arrived whole
/// within the body timeout — however the client trickles it (one byte every half second, well
/// inside the idle timeout, which each byte would otherwise reset). Against the real
/// `handz-analytics serve` on loopback, every wait bounded.
@Suite(.serialized) struct RequestBodyBoundTests {
    /// Sends `head`, then one body byte every `interval` until the server closes the connection
    /// or `deadline` passes; returns what the server sent, or nil when it was still open.
    static func trickle(_ head: String, port: Int, every interval: TimeInterval = 0.5, deadline: Date) -> String? {
        let fd = LoopbackSockets.connect(port: port)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        ConnectionTimeoutTests.send(fd, head)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var nextByte = Date()
        while Date() < deadline {
            if Date() >= nextByte {
                ConnectionTimeoutTests.send(fd, head.contains("chunked") ? "1\r\nx\r\n" : "x")
                nextByte = Date().addingTimeInterval(interval)
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return String(decoding: received, as: UTF8.self) }
            received += buffer[0..<count]
        }
        return nil
    }

    static func head(_ method: String, _ path: String, _ framing: String) -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(framing)\r\n\r\n"
    }

    @Test("a body sent to a route that takes none is refused with 413 and the connection closed, on every such route and on unknown paths")
    func routesWithoutBodyRefuseOne() async throws {
        let directory = try temporaryDirectory("handz-bodyless")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(directory: directory, arguments: ["--idle-timeout", "3", "--body-timeout", "1"])
        defer { server.stop() }
        let port = server.baseURL.port!
        let routes = [("GET", "/health"), ("GET", "/openapi.json"), ("GET", "/metrics"), ("GET", "/dashboards/login"),
                      ("GET", "/dashboards/d/engagement"), ("GET", "/dashboards/explore"), ("GET", "/no/such/path"), ("POST", "/no/such/path")]
        for (method, path) in routes {
            for framing in ["Content-Length: 1000000", "Transfer-Encoding: chunked"] {
                // Well inside the idle timeout (3 s) and the body timeout (1 s) plus slack: the
                // answer is immediate, not a timeout.
                let answer = Self.trickle(Self.head(method, path, framing), port: port, deadline: Date().addingTimeInterval(2.5))
                #expect(answer?.hasPrefix("HTTP/1.1 413") == true && answer?.contains("payload_too_large") == true,
                        "\(method) \(path) with \(framing): \(answer.map { String($0.prefix(12)) } ?? "still open")")
            }
        }
        // A route that takes no body still answers a request without one, on the same server.
        let fd = LoopbackSockets.connect(port: port)
        defer { close(fd) }
        ConnectionTimeoutTests.send(fd, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let health = ConnectionTimeoutTests.readUntilClosed(fd, deadline: Date().addingTimeInterval(5))
        #expect(health?.hasPrefix("HTTP/1.1 200") == true)
    }

    @Test("a body trickled to a route that takes one is answered 408 within the body timeout, on every such route class")
    func routesWithBodyTimeOut() async throws {
        let directory = try temporaryDirectory("handz-trickled")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(directory: directory, arguments: ["--idle-timeout", "3", "--body-timeout", "1"])
        defer { server.stop() }
        let port = server.baseURL.port!
        // The batch (large bodies), a signed admin route and a signed read (small bodies), and the
        // dashboards' sign-in form; each with a declared length and chunked.
        let routes = [("POST", "/v1/batch"), ("DELETE", "/v1/users/u-synthetic-1"), ("GET", "/v1/client-config"), ("POST", "/dashboards/login")]
        for (method, path) in routes {
            for framing in ["Content-Length: 900", "Transfer-Encoding: chunked"] {
                let answer = Self.trickle(Self.head(method, path, framing), port: port, deadline: Date().addingTimeInterval(6))
                #expect(answer?.hasPrefix("HTTP/1.1 408") == true && answer?.contains("request_timeout") == true,
                        "\(method) \(path) with \(framing): \(answer.map { String($0.prefix(12)) } ?? "still open")")
            }
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HandzSigning
import HandzTestSupport
import Testing

/// Connections that hold the server without finishing a request (issue 18 §4): a request head
/// sent half and then nothing (closed by the idle timeout), a body trickled and then stalled
/// (answered 408 by the body timeout) — while a normal client is served throughout. Against the
/// real `handz-analytics serve` on loopback; every wait is bounded.
@Suite(.serialized) struct ConnectionTimeoutTests {
    /// Up to `count` connections to the server, each sent `text` and then left alone.
    static func hold(_ count: Int, port: Int, sending text: String) -> [Int32] {
        var descriptors: [Int32] = []
        for _ in 0..<count {
            let fd = LoopbackSockets.connect(port: port)
            guard fd >= 0 else { break }
            send(fd, text)
            descriptors.append(fd)
        }
        return descriptors
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Waits (bounded by `deadline`) until the server has closed `fd` (EOF or reset); returns
    /// what it sent before closing.
    static func readUntilClosed(_ fd: Int32, deadline: Date) -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while Date() < deadline {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return String(decoding: received, as: UTF8.self) }
            received += buffer[0..<count]
        }
        return nil
    }

    @Test("1,000 half-sent request heads are closed by the idle timeout, stalled bodies get 408, and a normal client is served throughout")
    func slowConnectionsAreClosed() async throws {
        let directory = try temporaryDirectory("handz-slow")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(directory: directory, arguments: ["--idle-timeout", "3", "--body-timeout", "1"])
        defer { server.stop() }
        let port = server.baseURL.port!
        let heads = Self.hold(1_000, port: port, sending: "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-")
        defer { for fd in heads { close(fd) } }
        #expect(heads.count == 1_000, "opened \(heads.count) connections")
        let bodies = Self.hold(20, port: port, sending: "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"events\":[")
        defer { for fd in bodies { close(fd) } }
        #expect(bodies.count == 20)

        // A normal client, while all of those are held open.
        let client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())
        let events = ServerProcessTests.events(3, offset: 900_000)
        #expect(try await client.send(events: events).status == 200)

        let deadline = Date().addingTimeInterval(20)
        let stalled = bodies.map { Self.readUntilClosed($0, deadline: deadline) }
        #expect(stalled.allSatisfy { $0?.hasPrefix("HTTP/1.1 408") == true && $0?.contains("request_timeout") == true },
                "stalled bodies: \(stalled.map { $0.map { String($0.prefix(16)) } ?? "still open" })")
        var stillOpen = 0
        for fd in heads where Self.readUntilClosed(fd, deadline: deadline) == nil { stillOpen += 1 }
        #expect(stillOpen == 0, "\(stillOpen) half-sent heads still open after the idle timeout")
        // And the server still serves.
        #expect(try await client.send(events: ServerProcessTests.events(3, offset: 900_100)).status == 200)
    }
}

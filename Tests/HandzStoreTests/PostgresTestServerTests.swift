import Foundation
import Glibc
import HandzTestSupport
import Testing

/// The throwaway PostgreSQL server the store tests share keeps working while other tests hold
/// many sockets open: the commands it spawns inherit none of them (CI on 2026-11-25: a
/// postmaster started beside ConnectionTimeoutTests' thousand connections refused to start with
/// "insufficient file descriptors").
@Suite struct PostgresTestServerTests {
    @Test("commands the test server spawns inherit no descriptors: a server starts while 1,005 inheritable sockets are open")
    func spawnedCommandsInheritNoDescriptors() throws {
        // Plain socket(): no close-on-exec, as a test or library that forgets it would leave them.
        // 1,005 is past what a postmaster (max_files_per_process 1,000) accepts inherited.
        let held = (0..<1_005).map { _ in socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }
        defer { for descriptor in held where descriptor >= 0 { close(descriptor) } }
        try #require(held.allSatisfy { $0 >= 0 })
        let server = try PostgresTestServer()
        defer { server.stop() }
        let url = try server.makeDatabase()
        #expect(try server.psql(url, "SELECT 1") == "1")
    }
}

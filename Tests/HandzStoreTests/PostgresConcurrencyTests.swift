import Foundation
import HandzStore
import HandzTestSupport
import Logging
import PostgresNIO
import Testing
@testable import HandzPostgresStore

/// Several nodes on one PostgreSQL (a real server on loopback): the migration lock is released
/// where it was taken, and overlapping batches from two nodes never deadlock (issue 21 §12, §13).
@Suite struct PostgresConcurrencyTests {
    static let logger = Logger(label: "handz.test.postgres")

    /// A direct connection to the database at `url` (`postgres://postgres@127.0.0.1:PORT/NAME`).
    static func connect(_ url: String) async throws -> PostgresConnection {
        let components = try #require(URLComponents(string: url))
        let configuration = PostgresConnection.Configuration(
            host: "127.0.0.1", port: try #require(components.port), username: "postgres", password: nil,
            database: String(components.path.dropFirst()), tls: .disable)
        return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
    }

    static func advisoryLocksHeld(_ connection: PostgresConnection) async throws -> Int64 {
        var held: Int64 = -1
        let rows = try await connection.query("SELECT COUNT(*)::BIGINT FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()", logger: logger)
        for try await count in rows.decode(Int64.self) { held = count }
        return held
    }

    @Test("the migration lock is released on the connection that took it before migrate returns, after success and after failure")
    func migrationLockReleased() async throws {
        let server = try PostgresTestServer.shared.get()
        let fresh = try await Self.connect(try server.makeDatabase())
        try await PostgresEventStore.migrate(on: fresh, logger: Self.logger)
        #expect(try await Self.advisoryLocksHeld(fresh) == 0)
        try await fresh.close()

        // A database where migration 1 cannot apply: a table of that name already exists.
        let url = try server.makeDatabase()
        _ = try server.psql(url, "CREATE TABLE events (x INTEGER)")
        let broken = try await Self.connect(url)
        await #expect(throws: (any Error).self) { try await PostgresEventStore.migrate(on: broken, logger: Self.logger) }
        #expect(try await Self.advisoryLocksHeld(broken) == 0)
        try await broken.close()
    }

    @Test("two nodes appending the same events in opposite orders both commit, each event stored once")
    func overlappingBatchesDoNotDeadlock() async throws {
        let server = try PostgresTestServer.shared.get()
        let url = try server.makeDatabase()
        let nodeA = try await PostgresEventStore(url: url)
        let nodeB = try await PostgresEventStore(url: url)
        for round in 0..<4 {
            let ids = (0..<2_000).map { (UInt64(100 + round), UInt64($0)) }
            async let first = nodeA.append(StoreTests.batch(StoreTests.rows(ids)))
            async let second = nodeB.append(StoreTests.batch(StoreTests.rows(ids.reversed())))
            let (a, b) = try await (first, second)
            #expect(a.accepted + b.accepted == 2_000, "round \(round)")
            #expect(a.duplicates + b.duplicates == 2_000, "round \(round)")
        }
        #expect(Int64(try server.psql(url, "SELECT COUNT(*) FROM events")) == 8_000)
        await nodeA.close()
        await nodeB.close()
    }
}

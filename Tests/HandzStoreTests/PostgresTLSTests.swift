import Foundation
import HandzPostgresStore
import HandzStore
import HandzTestSupport
import Testing

/// The PostgreSQL store over TLS (issue 37 §2), against a real PostgreSQL on loopback with a
/// certificate from a throwaway authority: each `sslmode` connects or refuses as libpq's does,
/// the server confirms the connection is encrypted, and a refusal names its cause, never the
/// password.
@Suite(.serialized) struct PostgresTLSTests {
    /// A database on `server` at `url`, with the query string given.
    func url(_ base: String, _ query: String) -> String { base + (query.isEmpty ? "" : "?" + query) }

    /// Whether every connection the store opened to `database` is encrypted, as the server sees
    /// it (`pg_stat_ssl`); nil when it has none open.
    func encrypted(_ server: PostgresTestServer, _ base: String) throws -> Bool? {
        let database = String(base.split(separator: "/").last ?? "")
        let rows = try server.psql(base, """
            SELECT COALESCE(bool_and(s.ssl), false)::text || ':' || COUNT(*) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
            WHERE a.datname = '\(database)' AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'
            """)
        let parts = rows.split(separator: ":")
        guard parts.count == 2, parts[1] != "0" else { return nil }
        return parts[0] == "true"
    }

    @Test("verify-full with the authority, verify-ca and require connect encrypted; prefer uses TLS when offered; disable does not")
    func modesThatConnect() async throws {
        let certificates = try ThrowawayCertificates()
        defer { certificates.remove() }
        let server = try PostgresTestServer(tls: (certificates.certificate, certificates.privateKey))
        defer { server.stop() }
        let base = try server.makeDatabase()
        for (query, expectEncrypted) in [("sslmode=verify-full&sslrootcert=\(certificates.authority)", true),
                                         ("sslmode=verify-ca&sslrootcert=\(certificates.authority)", true),
                                         ("sslmode=require", true), ("", true), ("sslmode=disable", false)] {
            let store = try await PostgresEventStore(url: url(base, query))
            #expect(try encrypted(server, base) == expectEncrypted, "\(query.isEmpty ? "default (prefer)" : query)")
            await store.close()
        }
    }

    @Test("refused with the cause named: a certificate from another authority, require to a server without TLS, a wrong sslmode or an unreadable root file; never the password")
    func refusals() async throws {
        let certificates = try ThrowawayCertificates()
        defer { certificates.remove() }
        let server = try PostgresTestServer(tls: (certificates.certificate, certificates.privateKey))
        defer { server.stop() }
        let base = try server.makeDatabase().replacingOccurrences(of: "postgres@", with: "postgres:synthetic-password-7@")

        func refusal(_ url: String) async -> String {
            do {
                let store = try await PostgresEventStore(url: url)
                await store.close()
                return "connected"
            } catch {
                return String(describing: error)
            }
        }
        let wrongAuthority = await refusal(url(base, "sslmode=verify-full&sslrootcert=\(certificates.otherAuthority)"))
        #expect(wrongAuthority.contains("cannot reach the database at postgres://postgres@127.0.0.1"), "\(wrongAuthority)")
        #expect(wrongAuthority.lowercased().contains("certificate") || wrongAuthority.contains("handshake"), "the TLS failure is named: \(wrongAuthority)")

        // The shared server offers no TLS.
        let plain = try PostgresTestServer.shared.get()
        let noTLS = await refusal(url(try plain.makeDatabase(), "sslmode=require"))
        #expect(noTLS.contains("sslUnsupported"), "\(noTLS)")

        let badMode = await refusal(url(base, "sslmode=always"))
        #expect(badMode.contains("sslmode must be one of disable, prefer, require, verify-ca, verify-full"))
        let missingRoot = await refusal(url(base, "sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"))
        #expect(missingRoot.contains("sslrootcert: cannot read /nonexistent/ca.pem"))
        let unknown = await refusal(url(base, "sslcert=/tmp/x.pem"))
        #expect(unknown.contains("does not read: sslcert"))

        for message in [wrongAuthority, noTLS, badMode, missingRoot, unknown] {
            #expect(!message.contains("synthetic-password-7"), "no password in: \(message)")
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HandzCompression
import HandzIngest
import HandzSigning
import HandzTestSupport
import Testing

/// Authentication against the real `handz-analytics serve` on loopback (issue 21 §1, §2, §3, §5):
/// extreme timestamps, signatures bound to their request and used once, clock skew answered with
/// the server's time, and keys files with invalid secrets refused.
@Suite(.serialized) struct RequestSigningTests {
    /// A server directory whose keys file is written before the first start.
    final class World: @unchecked Sendable {
        let directory: URL
        let ingest = IngestionKey.generate(scopes: [.ingest])
        let admin = IngestionKey.generate(scopes: [.admin])
        let revoked: IngestionKey
        var server: ServerProcess?

        init(_ name: String) throws {
            directory = try temporaryDirectory(name)
            var revoked = IngestionKey.generate(scopes: [.ingest])
            revoked.status = .revoked
            self.revoked = revoked
            try KeysFile(keys: [ingest, admin, revoked]).save(path: keysPath)
        }

        deinit {
            server?.stop(signal: SIGKILL)
            try? FileManager.default.removeItem(at: directory)
        }

        var keysPath: String { directory.appendingPathComponent("handz-keys.json").path }

        func start() throws -> ServerProcess {
            let server = try ServerProcess(directory: directory)
            self.server = server
            return server
        }

        func client(_ key: IngestionKey) throws -> IngestHTTPClient {
            IngestHTTPClient(baseURL: try #require(server).baseURL, key: key)
        }
    }

    static let batch: [UInt8] = Gzip.compress(Array("{\"events\":[\(EventBuilder("app_open", seed: 5).json)]}".utf8))

    static func code(_ answer: IngestHTTPClient.Answer) -> String? {
        (answer.json?["error"] as? [String: Any])?["code"] as? String
    }

    @Test("timestamps near Int64.min and Int64.max, correctly signed, are refused and the server keeps serving")
    func extremeTimestamps() async throws {
        let world = try World("handz-extreme-ts")
        _ = try world.start()
        for timestamp in [Int64.min, Int64.min + 1, -Int64.max, Int64.max] {
            for scheme in RequestSignature.Scheme.allCases {
                let active = try await world.client(world.ingest).send(body: Self.batch, timestamp: timestamp, scheme: scheme)
                #expect(active.status == 401 && Self.code(active) == "clock_skew", "ts \(timestamp) \(scheme)")
                // A revoked key is refused before its timestamp or signature is looked at.
                let revoked = try await world.client(world.revoked).send(body: Self.batch, timestamp: timestamp, scheme: scheme)
                #expect(revoked.status == 403, "ts \(timestamp) \(scheme)")
            }
            let admin = try await world.client(world.admin).send(body: [], path: "/v1/admin/maintenance?seconds=60", encoding: nil, timestamp: timestamp)
            #expect(admin.status == 401 && Self.code(admin) == "clock_skew")
        }
        // Out-of-range numbers elsewhere: a ts that does not fit in 64 bits, a huge maintenance
        // duration and Content-Length.
        let overflowing = "\(RequestSignature.scheme) key=\(world.ingest.id), ts=99999999999999999999, sig=\(String(repeating: "0", count: 64))"
        #expect(try await world.client(world.ingest).send(body: Self.batch, authorization: overflowing).status == 401)
        let huge = try await world.client(world.admin).send(body: [], path: "/v1/admin/maintenance?seconds=99999999999999999999", encoding: nil)
        #expect(huge.status == 400)
        let alive = try await world.client(world.ingest).send(body: Self.batch)
        #expect(alive.status == 200)
        #expect(world.server?.process.isRunning == true)
    }

    @Test("an admin signature authorises only its own method, path and query, and only once")
    func adminSignaturesAreBoundAndSingleUse() async throws {
        let world = try World("handz-admin-replay")
        _ = try world.start()
        let admin = try world.client(world.admin)
        let now = Int64(Date().timeIntervalSince1970)
        let reload = RequestSignature.authorization(keyID: world.admin.id, secret: world.admin.secret, timestamp: now,
                                                    target: .init(method: "POST", path: "/v1/admin/reload"), body: [])
        #expect(try await admin.send(body: [], path: "/v1/admin/reload", encoding: nil, authorization: reload).status == 200)
        let replayed = try await admin.send(body: [], path: "/v1/admin/reload", encoding: nil, authorization: reload)
        #expect(replayed.status == 401 && Self.code(replayed) == "replayed_signature")
        // The captured header does not carry over to another route, method or query.
        let user = "6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70"
        let delete = try await admin.send(body: [], path: "/v1/users/\(user)", method: "DELETE", encoding: nil, authorization: reload)
        #expect(delete.status == 401 && Self.code(delete) == "unauthorized")
        let maintenance = RequestSignature.authorization(keyID: world.admin.id, secret: world.admin.secret, timestamp: now,
                                                         target: .init(method: "POST", path: "/v1/admin/maintenance", query: "seconds=0"), body: [])
        let stretched = try await admin.send(body: [], path: "/v1/admin/maintenance?seconds=86400", encoding: nil, authorization: maintenance)
        #expect(stretched.status == 401)
        // HZ1 (no method or target) is not accepted for admin routes at all.
        let legacy = try await admin.send(body: [], path: "/v1/admin/maintenance?seconds=0", encoding: nil, scheme: .hz1)
        #expect(legacy.status == 401)
        // Each request signed for itself works.
        #expect(try await admin.send(body: [], path: "/v1/admin/maintenance?seconds=0", encoding: nil).status == 200)
        #expect(try await admin.send(body: [], path: "/v1/users/\(user)", method: "DELETE", encoding: nil).status == 202)
        // Old app builds sign batches with HZ1: still accepted on /v1/batch — and only there
        // (schemathesis found GET /v1/client-config taking it too).
        let ingest = try world.client(world.ingest)
        #expect(try await ingest.send(body: Self.batch, scheme: .hz1).status == 200)
        #expect(try await ingest.send(body: [], path: "/v1/client-config", method: "GET", encoding: nil, scheme: .hz1).status == 401)
        #expect(try await ingest.send(body: [], path: "/v1/client-config", method: "GET", encoding: nil).status == 200)
        // A body over 1 KiB on an admin route is refused, not read as empty (which let a
        // signature over the empty body pass).
        let oversized = [UInt8](repeating: 0x20, count: 1024 + 1)
        let emptySigned = RequestSignature.authorization(keyID: world.admin.id, secret: world.admin.secret, timestamp: now,
                                                         target: .init(method: "POST", path: "/v1/admin/reload", query: ""), body: [])
        #expect(try await admin.send(body: oversized, path: "/v1/admin/reload", encoding: nil, authorization: emptySigned).status == 413)
    }

    @Test("a stale timestamp is answered with clock_skew and the server's time, in the body and the Date header")
    func clockSkewAnswer() async throws {
        let world = try World("handz-clock-skew")
        _ = try world.start()
        let now = Date().timeIntervalSince1970
        let answer = try await world.client(world.ingest).send(body: Self.batch, timestamp: Int64(now) - 360)
        #expect(answer.status == 401 && Self.code(answer) == "clock_skew")
        let serverTime = try #require(((answer.json?["error"] as? [String: Any])?["server_time"] as? NSNumber)?.doubleValue)
        #expect(abs(serverTime - now) < 30)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        let date = try #require(answer.headers["date"].flatMap(formatter.date(from:)))
        #expect(abs(date.timeIntervalSince1970 - now) < 30)
    }

    @Test("a keys file with a secret that is not 64 hex digits: the server refuses to start, naming the key and never the secret")
    func invalidSecretAtStart() throws {
        let world = try World("handz-bad-secret")
        var placeholder = IngestionKey.generate(scopes: [.ingest, .admin])
        placeholder.secretHex = "CHANGE_ME_BEFORE_RELEASE"
        try KeysFile(keys: [world.ingest, placeholder]).save(path: world.keysPath)
        do {
            _ = try world.start()
            Issue.record("the server started with an invalid secret")
        } catch let failure as ServerProcess.StartFailure {
            #expect(failure.output.contains(String(placeholder.id.prefix(12))))
            #expect(!failure.output.contains("CHANGE_ME"))
        }
    }

    @Test("a keys file changed to hold an invalid secret is not reloaded: the keys in force stay, the new key never works")
    func invalidSecretOnReload() async throws {
        let world = try World("handz-bad-secret-reload")
        let server = try world.start()
        var placeholder = IngestionKey.generate(scopes: [.ingest, .admin])
        placeholder.secretHex = "not-hex-placeholder"
        // The edited file drops the ingest key: had it been loaded, that key would stop working.
        try KeysFile(keys: [world.admin, placeholder]).save(path: world.keysPath)
        // Signed with the secret an unchecked loader would have made of it: none.
        var unchecked = placeholder
        unchecked.secretHex = ""
        let empty = IngestHTTPClient(baseURL: try #require(world.server).baseURL, key: unchecked)
        // The ring re-reads a changed file within a second; ask for three.
        let deadline = Date().addingTimeInterval(3)
        var statuses: Set<Int> = []
        while Date() < deadline {
            statuses.insert(try await empty.send(body: Self.batch).status)
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(statuses == [401])
        #expect(try await world.client(world.ingest).send(body: Self.batch).status == 200)
        #expect(server.printed.contains("keys file not reloaded"))
        #expect(server.printed.contains(String(placeholder.id.prefix(12))))
        #expect(!server.printed.contains("not-hex-placeholder"))
    }

    @Test("the keys file loader refuses secrets of the wrong length or alphabet, naming only the key id", arguments: [
        "", "abc", String(repeating: "a", count: 63), String(repeating: "a", count: 65), String(repeating: "g", count: 64), "CHANGE_ME",
    ])
    func keysFileValidation(secret: String) throws {
        let directory = try temporaryDirectory("handz-keys-file")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("keys.json").path
        var key = IngestionKey.generate(scopes: [.ingest])
        key.secretHex = secret
        try KeysFile(keys: [IngestionKey.generate(scopes: [.admin]), key]).save(path: path)
        #expect(throws: KeysFile.Failure.invalidKey(path: path, keyID: key.id)) { try KeysFile.load(path: path) }
        if secret.count >= 9 { #expect(!KeysFile.Failure.invalidKey(path: path, keyID: key.id).description.contains(secret)) }
        #expect(!key.hasValidSecret && key.secret.isEmpty)
    }
}

import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzCompression
@testable import HandzIngest
import HandzLifecycle
import HandzSigning
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// The ingestion pipeline without HTTP: every whole-request status, receipts, quarantine, privacy.
@Suite struct IngestServiceTests {
    final class Fixture: @unchecked Sendable {
        let directory: URL
        let store: SQLiteEventStore
        let service: IngestService
        let ingest = IngestionKey.generate(scopes: [.ingest])
        let admin = IngestionKey.generate(scopes: [.admin])
        var revoked = IngestionKey.generate(scopes: [.ingest])

        init(limits: IngestLimits = IngestLimits(), rateLimits: RateLimits = RateLimits()) throws {
            directory = try temporaryDirectory("handz-ingest")
            revoked.status = .revoked
            let keysPath = directory.appendingPathComponent("keys.json").path
            try KeysFile(keys: [ingest, admin, revoked]).save(path: keysPath)
            store = try SQLiteEventStore(path: directory.appendingPathComponent("events.sqlite").path)
            service = IngestService(catalog: LiveCatalog(RepositoryCatalog.catalog), store: store, keys: try KeyRing(path: keysPath),
                                    limits: limits, rateLimits: rateLimits,
                                    catalogLoader: { CatalogSet(current: try CatalogLoader.loadChecked(directory: RepositoryCatalog.directory)) })
        }

        deinit {
            store.closeNow()
            try? FileManager.default.removeItem(at: directory)
        }

        func headers(_ body: [UInt8], key: IngestionKey? = nil, gzip: Bool = true, timestamp: Int64? = nil,
                     target: RequestSignature.Target = .batch) -> [String: String] {
            let key = key ?? ingest
            var headers = ["content-type": "application/json",
                           "authorization": RequestSignature.authorization(keyID: key.id, secret: key.secret, timestamp: timestamp ?? Int64(Date().timeIntervalSince1970),
                                                                           target: target, body: body)]
            if gzip { headers["content-encoding"] = "gzip" }
            return headers
        }

        func send(_ events: [String], key: IngestionKey? = nil) async -> IngestResponse {
            let body = Gzip.compress(Array("{\"events\":[\(events.joined(separator: ","))]}".utf8))
            return await service.ingest(headers: headers(body, key: key), body: body)
        }

        /// `DELETE /v1/users/{userID}` signed with `key` (the admin key unless given).
        func forgetUser(_ userID: String, key: IngestionKey? = nil) async -> IngestResponse {
            let target = RequestSignature.Target(method: "DELETE", path: "/v1/users/\(userID)")
            return await service.forgetUser(userID, headers: headers([], key: key ?? admin, gzip: false, target: target), body: [], target: target)
        }

        /// `GET /v1/deletions/{requestID}` signed with `key` (the admin key unless given).
        func deletionStatus(_ requestID: String, key: IngestionKey? = nil) async -> IngestResponse {
            let target = RequestSignature.Target(method: "GET", path: "/v1/deletions/\(requestID)")
            return await service.deletionStatus(requestID, headers: headers([], key: key ?? admin, gzip: false, target: target), body: [], target: target)
        }

        /// What `serve`'s lifecycle service does after a request: the deletion worker's pass.
        func runDeletionWorker() async throws {
            _ = try await DeletionWorker(store: store, lake: nil, owner: "test", clock: { Int64(Date().timeIntervalSince1970 * 1000) }).runUntilIdle()
        }

        /// `POST /v1/admin/reload` signed with the admin key.
        func reloadCatalog() -> IngestResponse {
            let target = RequestSignature.Target(method: "POST", path: "/v1/admin/reload")
            return service.reloadCatalog(headers: headers([], key: admin, gzip: false, target: target), body: [], target: target)
        }

        func count(_ sql: String) throws -> Int64 {
            try SQLiteDatabase(path: directory.appendingPathComponent("events.sqlite").path).scalar(sql) ?? -1
        }
    }

    static func json(_ response: IngestResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }

    static func errorCode(_ response: IngestResponse) -> String? {
        (json(response)["error"] as? [String: Any])?["code"] as? String
    }

    @Test("a signed gzip batch is stored and receipted; re-sending it yields duplicates, not rows")
    func acceptAndDedupe() async throws {
        let fixture = try Fixture()
        let events = (1...20).map { EventBuilder("app_open", seed: UInt64($0)).json }
        let first = await fixture.send(events)
        #expect(first.status == 200)
        #expect(String(decoding: first.body, as: UTF8.self) == "{\"accepted\":20,\"duplicates\":0,\"rejected\":[],\"catalog_version\":\"\(RepositoryCatalog.catalog.version)\"}")
        let again = await fixture.send(events)
        #expect(String(decoding: again.body, as: UTF8.self) == "{\"accepted\":0,\"duplicates\":20,\"rejected\":[],\"catalog_version\":\"\(RepositoryCatalog.catalog.version)\"}")
        #expect(try fixture.count("SELECT COUNT(*) FROM events") == 20)
        #expect(try fixture.count("SELECT COUNT(DISTINCT catalog_version) FROM events") == 1)
    }

    @Test("each rejected event gets a receipt entry and a quarantine row without values")
    func rejectionsAreReceipted() async throws {
        let fixture = try Fixture()
        var bad = EventBuilder("app_open", seed: 3)
        bad["user_state"] = "SENTINEL@example.com"
        let events = [EventBuilder("app_open", seed: 1).json, bad.json, "[1,2]", "{\"event_name\":\"nope\"}"]
        let response = await fixture.send(events)
        #expect(response.status == 200)
        let receipt = Self.json(response)
        #expect(receipt["accepted"] as? Int == 1)
        let rejected = receipt["rejected"] as! [[String: Any]]
        #expect(rejected.map { $0["index"] as! Int } == [1, 2, 3])
        #expect(rejected[0]["event_id"] as? String == (bad["event_id"] as! String).lowercased())
        #expect(rejected[1]["event_id"] is NSNull)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("SENTINEL"))
        #expect(try fixture.count("SELECT COUNT(*) FROM rejected_events") == 3)
        let file = try Data(contentsOf: fixture.directory.appendingPathComponent("events.sqlite"))
            + ((try? Data(contentsOf: fixture.directory.appendingPathComponent("events.sqlite-wal"))) ?? Data())
        #expect(file.range(of: Data("SENTINEL".utf8)) == nil)
    }

    @Test("401: missing, malformed, forged, expired signatures; unknown key")
    func unauthorized() async throws {
        let fixture = try Fixture()
        let body = Gzip.compress(Array("{\"events\":[]}".utf8))
        var headers = fixture.headers(body)
        headers["authorization"] = nil
        #expect(await fixture.service.ingest(headers: headers, body: body).status == 401)
        headers["authorization"] = "Bearer secret"
        #expect(await fixture.service.ingest(headers: headers, body: body).status == 401)
        let forged = fixture.headers(Gzip.compress(Array("{\"events\":[{}]}".utf8)))
        #expect(await fixture.service.ingest(headers: forged, body: body).status == 401)
        let stale = fixture.headers(body, timestamp: Int64(Date().timeIntervalSince1970) - 301)
        let staleAnswer = await fixture.service.ingest(headers: stale, body: body)
        #expect(staleAnswer.status == 401 && Self.errorCode(staleAnswer) == "clock_skew")
        let future = fixture.headers(body, timestamp: Int64(Date().timeIntervalSince1970) + 301)
        let futureAnswer = await fixture.service.ingest(headers: future, body: body)
        #expect(futureAnswer.status == 401 && Self.errorCode(futureAnswer) == "clock_skew")
        let stranger = IngestionKey.generate(scopes: [.ingest])
        let response = await fixture.service.ingest(headers: fixture.headers(body, key: stranger), body: body)
        #expect(response.status == 401 && Self.errorCode(response) == "unauthorized")
    }

    @Test("403: a revoked key, a key without the route's scope")
    func forbidden() async throws {
        let fixture = try Fixture()
        let body = Gzip.compress(Array("{\"events\":[]}".utf8))
        #expect(await fixture.service.ingest(headers: fixture.headers(body, key: fixture.revoked), body: body).status == 403)
        #expect(await fixture.service.ingest(headers: fixture.headers(body, key: fixture.admin), body: body).status == 403)
        let admin = await fixture.forgetUser("6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70", key: fixture.ingest)
        #expect(admin.status == 403)
    }

    @Test("400: malformed envelopes, invalid UTF-8, truncated or corrupt gzip")
    func malformed() async throws {
        let fixture = try Fixture()
        let plain: [String] = ["not json", "{\"events\":{}}", "{}", "{\"events\":[],\"extra\":1}", "{\"sent_at\":\"yesterday\",\"events\":[]}", "[]"]
        for text in plain {
            let body = Array(text.utf8)
            let response = await fixture.service.ingest(headers: fixture.headers(body, gzip: false), body: body)
            #expect(response.status == 400 && Self.errorCode(response) == "malformed_envelope", "\(text)")
        }
        let utf8: [UInt8] = Array("{\"events\":[{\"event_name\":\"".utf8) + [0xFF] + Array("\"}]}".utf8)
        #expect(await fixture.service.ingest(headers: fixture.headers(utf8, gzip: false), body: utf8).status == 400)
        let gz = Gzip.compress(Array("{\"events\":[]}".utf8))
        let truncated = Array(gz.prefix(gz.count / 2))
        #expect(await fixture.service.ingest(headers: fixture.headers(truncated), body: truncated).status == 400)
        let garbage: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4, 5]
        #expect(await fixture.service.ingest(headers: fixture.headers(garbage), body: garbage).status == 400)
    }

    @Test("413: oversized bodies, gzip bombs, too many events")
    func tooLarge() async throws {
        var limits = IngestLimits()
        limits.maxEventsPerBatch = 10
        let fixture = try Fixture(limits: limits)
        let bomb = Gzip.compress([UInt8](repeating: 0x20, count: 20 << 20))
        #expect(bomb.count < 100_000)
        let response = await fixture.service.ingest(headers: fixture.headers(bomb), body: bomb)
        #expect(response.status == 413 && Self.errorCode(response) == "payload_too_large")
        let big = [UInt8](repeating: 0x20, count: (1 << 20) + 1)
        #expect(await fixture.service.ingest(headers: fixture.headers(big, gzip: false), body: big).status == 413)
        #expect(fixture.service.tooLarge(contentLength: (1 << 20) + 1)?.status == 413)
        let many = await fixture.send((0..<11).map { EventBuilder("app_open", seed: UInt64($0)).json })
        #expect(many.status == 413)
    }

    @Test("415: wrong content type or encoding")
    func unsupportedMedia() async throws {
        let fixture = try Fixture()
        let body = Array("{\"events\":[]}".utf8)
        var headers = fixture.headers(body, gzip: false)
        headers["content-type"] = "text/plain"
        #expect(await fixture.service.ingest(headers: headers, body: body).status == 415)
        headers = fixture.headers(body, gzip: false)
        headers["content-encoding"] = "br"
        #expect(await fixture.service.ingest(headers: headers, body: body).status == 415)
        headers = fixture.headers(body, gzip: false)
        headers["content-type"] = "application/json; charset=utf-8"
        #expect(await fixture.service.ingest(headers: headers, body: body).status == 200)
    }

    @Test("a key already out of budget is refused before its body is decompressed or validated (refuse before, debit after)")
    func keyOutOfBudgetRefusedBeforeWork() async throws {
        var rates = RateLimits()
        rates.perKeyEventsPerSecond = 0.001
        rates.perKeyBurst = 20
        let fixture = try Fixture(rateLimits: rates)
        var builder = EventBuilder("app_open", seed: 2)
        let events: [String] = (0..<20).map { index in
            builder["event_id"] = String(format: "0190a5e2-6c1d-7b3e-9f01-%012x", index)
            return builder.json
        }
        // The whole budget, debited after validation: accepted.
        #expect(await fixture.send(events).status == 200)
        // Now a body that is not gzip at all: an in-budget key would get 400 for it; this key is
        // refused with 429 before the body is looked at.
        let junk: [UInt8] = Array("not gzip".utf8)
        let refused = await fixture.service.ingest(headers: fixture.headers(junk), body: junk)
        #expect(refused.status == 429)
        #expect(refused.headers.contains { $0.0 == "Retry-After" && Int($0.1)! >= 1 })
        // The same junk from another key with budget left is read, and refused as malformed.
        var other = RateLimits()
        other.perKeyBurst = 20
        let fresh = try Fixture(rateLimits: other)
        #expect(await fresh.service.ingest(headers: fresh.headers(junk), body: junk).status == 400)
    }

    @Test("an install that names itself in Handz-Install and is already out of budget is refused before its body is decompressed")
    func installOutOfBudgetRefusedBeforeWork() async throws {
        var rates = RateLimits()
        rates.perInstallEventsPerSecond = 0.001
        rates.perInstallBurst = 20
        let fixture = try Fixture(rateLimits: rates)
        var builder = EventBuilder("app_open", seed: 3)
        let install = try #require(builder["install_id"] as? String)
        let events: [String] = (0..<20).map { index in
            builder["event_id"] = String(format: "0190a5e2-6c1d-7b3e-9f02-%012x", index)
            return builder.json
        }
        #expect(await fixture.send(events).status == 200)
        let junk: [UInt8] = Array("not gzip".utf8)
        var named = fixture.headers(junk)
        named["handz-install"] = install
        let refused = await fixture.service.ingest(headers: named, body: junk)
        #expect(refused.status == 429)
        #expect(refused.headers.contains { $0.0 == "Retry-After" && Int($0.1)! >= 1 })
        // Without the header, or naming another install, the body is read (and refused as malformed).
        #expect(await fixture.service.ingest(headers: fixture.headers(junk), body: junk).status == 400)
        named["handz-install"] = "3c17d7d7-2f7f-46ee-a7a3-880290e669c9"
        #expect(await fixture.service.ingest(headers: named, body: junk).status == 400)
        #expect(IngestService.declaredInstall("not-a-uuid") == nil)
        #expect(IngestService.declaredInstall(" \(install) ") == install)
        // Upper case names the same install (budgets are keyed by the lowercased id).
        named["handz-install"] = install.uppercased()
        #expect(await fixture.service.ingest(headers: named, body: junk).status == 429)
    }

    @Test("GET /v1/client-config: signed with an ingest key, served with an ETag; the same ETag answers 304; unsigned is 401")
    func clientConfigRoute() throws {
        let fixture = try Fixture()
        var config = try ClientConfig(json: Data(#"{"flush_interval_seconds": 60, "max_batch_events": 50, "disabled_catalog_versions": ["1.1.0"]}"#.utf8))
        let target = RequestSignature.Target(method: "GET", path: "/v1/client-config")
        let answer = fixture.service.clientConfig(config, headers: fixture.headers([], gzip: false, target: target), body: [], target: target)
        #expect(answer.status == 200)
        #expect(Self.json(answer)["max_batch_events"] as? Int == 50 && Self.json(answer)["disabled_catalog_versions"] as? [String] == ["1.1.0"])
        let etag = try #require(answer.headers.first { $0.0 == "ETag" }?.1)
        var headers = fixture.headers([], gzip: false, target: target)
        headers["if-none-match"] = etag
        let unchanged = fixture.service.clientConfig(config, headers: headers, body: [], target: target)
        #expect(unchanged.status == 304 && unchanged.body.isEmpty)
        config.flushIntervalSeconds = 120
        #expect(fixture.service.clientConfig(config, headers: headers, body: [], target: target).status == 200, "a changed config has a new ETag")
        #expect(fixture.service.clientConfig(config, headers: [:], body: [], target: target).status == 401)
        #expect(throws: ClientConfigError.self) { try ClientConfig(json: Data(#"{"flush_interval": 60}"#.utf8)) }
        #expect(throws: ClientConfigError.self) { try ClientConfig(json: Data(#"{"max_batch_events": 0}"#.utf8)) }
    }

    @Test("429 with Retry-After: an install over its budget, and too many requests at once")
    func rateLimited() async throws {
        var rates = RateLimits()
        // A refill so slow that a loaded machine cannot refill the bucket between the two sends
        // (at 1/s, a first send slower than 10 s let the second one through).
        rates.perInstallEventsPerSecond = 0.001
        rates.perInstallBurst = 30
        var limits = IngestLimits()
        limits.maxConcurrentRequests = 1
        let fixture = try Fixture(limits: limits, rateLimits: rates)
        var builder = EventBuilder("app_open", seed: 1)
        let events: [String] = (0..<20).map { index in
            builder["event_id"] = String(format: "0190a5e2-6c1d-7b3e-9f00-%012x", index)
            return builder.json
        }
        #expect(await fixture.send(events).status == 200)
        let limited = await fixture.send(events)
        #expect(limited.status == 429)
        #expect(limited.headers.contains { $0.0 == "Retry-After" && Int($0.1)! >= 1 })
        // Nothing of the refused batch was stored.
        #expect(try fixture.count("SELECT COUNT(*) FROM events") == 20)
        #expect(fixture.service.admit())
        #expect(!fixture.service.admit())
        #expect(fixture.service.concurrencyLimited.status == 429)
        fixture.service.release()
        #expect(fixture.service.admit())
        fixture.service.release()
    }

    @Test("503 with Retry-After when the store cannot write")
    func storeUnavailable() async throws {
        let fixture = try Fixture()
        fixture.store.closeNow()
        let response = await fixture.send([EventBuilder("app_open").json])
        #expect(response.status == 503 && Self.errorCode(response) == "store_unavailable")
        #expect(response.headers.contains { $0.0 == "Retry-After" })
        #expect(fixture.service.health().status == 503)
    }

    @Test("a deletion through the admin route: 202 with a request id, progress at /v1/deletions/{id}, idempotent; the catalog reloads through the admin route")
    func adminRoutes() async throws {
        let fixture = try Fixture()
        let user = "6c1f1e8e-4b7a-4d2b-9a51-3e0c1f2a9b70"
        var event = EventBuilder("app_open", seed: 9)
        event["user_id"] = user
        event["user_state"] = "free"
        #expect(await fixture.send([event.json]).status == 200)
        #expect(try fixture.count("SELECT COUNT(*) FROM events WHERE user_id IS NOT NULL") == 1)
        let answer = await fixture.forgetUser(user)
        #expect(answer.status == 202)
        let id = try #require(Self.json(answer)["request_id"] as? String)
        #expect(Self.json(answer)["state"] as? String == "pending")
        #expect(!String(decoding: answer.body, as: UTF8.self).contains(user))
        #expect(try fixture.count("SELECT COUNT(*) FROM events WHERE user_id IS NOT NULL") == 1)  // the worker has not run yet
        try await fixture.runDeletionWorker()
        #expect(try fixture.count("SELECT COUNT(*) FROM events WHERE user_id IS NOT NULL") == 0)
        // A late event of the deleted user (an offline queue) is stored, without the id; another
        // user's is stored as sent.
        var late = EventBuilder("app_open", seed: 10)
        late["user_id"] = user.uppercased()
        late["user_state"] = "free"
        var stranger = EventBuilder("app_open", seed: 11)
        stranger["user_id"] = "0c0c0c0c-1111-4222-8333-444455556666"
        stranger["user_state"] = "free"
        #expect(IngestServiceTests.json(await fixture.send([late.json, stranger.json]))["accepted"] as? Int == 2)
        #expect(try fixture.count("SELECT COUNT(*) FROM events") == 3)
        #expect(try fixture.count("SELECT COUNT(*) FROM events WHERE user_id IS NOT NULL") == 1)
        let status = await fixture.deletionStatus(id)
        #expect(status.status == 200)
        #expect(Self.json(status)["state"] as? String == "completed" && Self.json(status)["events_deidentified"] as? Int == 1)
        let again = await fixture.forgetUser(user.uppercased())
        #expect(again.status == 202 && Self.json(again)["request_id"] as? String == id)
        #expect(await fixture.deletionStatus("0b0b0b0b-1111-4222-8333-444455556666").status == 404)
        #expect(await fixture.deletionStatus(id, key: fixture.ingest).status == 403)
        #expect(await fixture.deletionStatus("not-a-uuid").status == 400)
        let reload = fixture.reloadCatalog()
        #expect(reload.status == 200)
        #expect(fixture.service.health().status == 200)
        let health = Self.json(fixture.service.health())
        #expect(health["retention"] as? String == "13mo" && health["pending_deletions"] as? Int == 0)
    }

    @Test("error bodies never echo the payload")
    func errorsDoNotEcho() async throws {
        let fixture = try Fixture()
        let body = Array("{\"SENTINEL\":\"SENTINEL@example.com\"}".utf8)
        let response = await fixture.service.ingest(headers: fixture.headers(body, gzip: false), body: body)
        #expect(response.status == 400)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("SENTINEL"))
    }
}

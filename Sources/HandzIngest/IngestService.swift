import Foundation
import HandzAnalyticsCore
import HandzCompression
import HandzSigning
import HandzStore
import Logging

/// The ingestion pipeline behind `POST /v1/batch` and the admin routes, independent of the HTTP
/// framework: headers and body bytes in, an `IngestResponse` out.
///
/// Order of checks, cheapest first, and nothing costly before the caller is known: content type
/// and encoding (415), size (413), then authentication — the header parsed (401), the key looked
/// up (unknown 401, revoked 403) and the timestamp's freshness checked (401 `clock_skew` with the
/// server's time) before any HMAC is computed, then the signature (401) and the scope (403);
/// then a key, or an install named in the `Handz-Install` header, already out of budget (429, before any
/// decompression or validation); then
/// decompression with a hard limit (413), envelope (400), per-event validation, the rate limits
/// debited by the batch's events and installs (429), and the store (503 when it cannot write). A 200 is sent only after the store committed
/// the accepted events. Every number from a request (header timestamps, `Content-Length`, query
/// values) is parsed into a bounded range or refused; no arithmetic on one can overflow.
public final class IngestService: Sendable {
    public let catalog: LiveCatalog
    public let store: any EventStore
    public let keys: KeyRing
    public let limits: IngestLimits
    let keyBuckets: TokenBuckets
    let installBuckets: TokenBuckets
    let metrics = IngestMetrics()
    let logger: Logger
    let clock: @Sendable () -> Date
    private let inFlight = Locked(0)
    /// Until when the endpoint answers 503 (maintenance), if set.
    private let maintenanceUntil = Locked<Date?>(nil)
    /// Re-reads the catalog directory and its releases (for reload); nil when reloading is not possible.
    let catalogLoader: (@Sendable () throws -> CatalogSet)?
    /// Admin signatures already accepted (replay refusal).
    let replayGuard = ReplayGuard()
    /// Tests only: runs right after a batch took the catalog it validates and is stored under (to put
    /// a catalog reload exactly there).
    let afterCatalogTaken = Locked<(@Sendable () -> Void)?>(nil)
    /// Wakes the deletion worker when a request arrives (set by the server).
    public let deletionRequested = Locked<(@Sendable () -> Void)?>(nil)
    /// The ages `/health` reports (issue 14 §4), kept current by the server's lifecycle service.
    public let lifecycle = Locked(LifecycleReport())
    /// Users deleted lately: an event still carrying one's id is stored without it (issue 14).
    public let deletedSubjects = DeletedSubjects()

    public init(catalog: LiveCatalog, store: any EventStore, keys: KeyRing, limits: IngestLimits = IngestLimits(),
                rateLimits: RateLimits = RateLimits(), logger: Logger = Logger(label: "handz.ingest"),
                clock: @escaping @Sendable () -> Date = { Date() },
                catalogLoader: (@Sendable () throws -> CatalogSet)? = nil) {
        self.catalog = catalog
        self.store = store
        self.keys = keys
        self.limits = limits
        keyBuckets = TokenBuckets(rate: rateLimits.perKeyEventsPerSecond, burst: rateLimits.perKeyBurst, slots: 1024)
        installBuckets = TokenBuckets(rate: rateLimits.perInstallEventsPerSecond, burst: rateLimits.perInstallBurst, slots: rateLimits.installBuckets)
        self.logger = logger
        self.clock = clock
        self.catalogLoader = catalogLoader
    }

    // MARK: Admission

    /// Takes a processing slot, or nil when `maxConcurrentRequests` are already running (the
    /// caller answers 429 without reading the body). Call `release()` when done.
    public func admit() -> Bool {
        inFlight.withLock { count in
            guard count < limits.maxConcurrentRequests else { return false }
            count += 1
            metrics.inProgress.record(count)
            return true
        }
    }

    public func release() {
        inFlight.withLock { count in
            count -= 1
            metrics.inProgress.record(count)
        }
    }

    public var concurrencyLimited: IngestResponse {
        metrics.rateLimitedConcurrency.increment()
        return finish(.error(.rateLimited(retryAfterSeconds: 1)))
    }

    /// The size check the HTTP layer runs before reading a body with a declared length.
    public func tooLarge(contentLength: Int) -> IngestResponse? {
        contentLength > limits.maxBodyBytes ? finish(.error(.payloadTooLarge("body is larger than \(limits.maxBodyBytes) bytes"))) : nil
    }

    public var bodyTooLarge: IngestResponse { finish(.error(.payloadTooLarge("body is larger than \(limits.maxBodyBytes) bytes"))) }

    func finish(_ response: IngestResponse) -> IngestResponse {
        metrics.request(status: response.status)
        return response
    }

    // MARK: POST /v1/batch

    /// Handles one batch. `headers` maps lowercased names to values; `body` is exactly as sent.
    /// `target` is the request line as received (what an HZ2 signature covers).
    public func ingest(headers: [String: String], body: [UInt8], target: RequestSignature.Target = .batch) async -> IngestResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        defer { metrics.batchDuration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        do {
            return finish(try await ingestChecked(headers: headers, body: body, target: target))
        } catch let error as RequestError {
            if error.status >= 500 { logger.warning("batch failed", metadata: ["code": "\(error.code)"]) }
            return finish(.error(error))
        } catch {
            return finish(.error(.storeUnavailable(retryAfterSeconds: 1)))
        }
    }

    func ingestChecked(headers: [String: String], body: [UInt8], target: RequestSignature.Target) async throws -> IngestResponse {
        if let until = maintenanceUntil.withLock({ $0 }), until > clock() {
            throw RequestError.storeUnavailable(retryAfterSeconds: max(1, Int(until.timeIntervalSince(clock()).rounded(.up))))
        }
        try checkContentType(headers)
        let gzip = try checkEncoding(headers)
        guard body.count <= limits.maxBodyBytes else { throw RequestError.payloadTooLarge("body is larger than \(limits.maxBodyBytes) bytes") }
        let key = try authenticate(headers, target: target, body: body, scope: .ingest)
        let now = clock()
        // Refuse before, debit after: a key already out of budget costs no decompression or
        // validation (the batch's event count, and so its cost, is only known after them). An
        // install's budget is only known from its events, so it is checked after parsing.
        if let wait = keyBuckets.wait(key.id, cost: 1, now: now.timeIntervalSince1970) {
            metrics.rateLimitedKey.increment()
            throw RequestError.rateLimited(retryAfterSeconds: Self.retryAfter(wait))
        }
        // The same for an install that names itself in the `Handz-Install` header (the iOS client
        // sends it): an install already over its budget costs no decompression either. A header
        // and not the query, so proxies' URL logs never hold the id. It is not signed and need not
        // be: it can only get its own request refused. Left out, or naming another install, the
        // events are still charged after validation, per install_id and within the key's budget.
        if let install = Self.declaredInstall(headers["handz-install"]), let wait = installBuckets.wait(install, cost: 1, now: now.timeIntervalSince1970) {
            metrics.rateLimitedInstall.increment()
            throw RequestError.rateLimited(retryAfterSeconds: Self.retryAfter(wait))
        }
        let decoded: [UInt8]
        if gzip {
            do {
                decoded = try Gzip.decompress(body, limit: limits.maxDecompressedBytes)
            } catch .tooLarge {
                throw RequestError.payloadTooLarge("decompressed body is larger than \(limits.maxDecompressedBytes) bytes")
            } catch {
                throw RequestError.malformedEnvelope("body is not valid gzip")
            }
        } else {
            guard body.count <= limits.maxDecompressedBytes else { throw RequestError.payloadTooLarge("body is too large") }
            decoded = body
        }
        let maxEvents = limits.maxEventsPerBatch
        let parsed = decoded.withUnsafeBytes { buffer in
            Result { () throws(BatchEnvelopeError) -> BatchEnvelope in try BatchEnvelopeParser.parse(buffer, maxEvents: maxEvents) }
        }
        let envelope: BatchEnvelope
        switch parsed {
        case .success(let value): envelope = value
        case .failure(.tooManyEvents(let limit)): throw RequestError.payloadTooLarge("a batch holds at most \(limit) events")
        case .failure(let error): throw RequestError.malformedEnvelope(error.message)
        }

        // One read of the live catalogs: the validator carries the catalog the app's
        // catalog_version chooses (docs/catalog-releases.md), and the batch is stored under that
        // catalog's version, whatever a reload does meanwhile. A version the server cannot
        // validate against refuses every event with its code, on the receipt and in quarantine.
        var processor = BatchProcessor(capacity: envelope.events.count)
        let catalogVersion: String
        switch catalog.checkOutValidator(forCatalogVersion: envelope.catalogVersion) {
        case .success(var validator):
            defer { catalog.checkIn(validator) }
            catalogVersion = validator.catalog.version
            afterCatalogTaken.withLock { $0 }?()
            let ids = BatchProcessor.FieldIDs(validator.catalog)
            decoded.withUnsafeBytes { processor.process($0, events: envelope.events, validator: &validator, ids: ids) }
        case .failure(let refusal):
            catalogVersion = catalog.current.version
            processor.refuseAll(events: envelope.events, code: refusal.code)
        }

        try checkRateLimits(keyID: key.id, events: envelope.events.count, perInstall: processor.eventsPerInstall, now: now)

        // A deleted user's id arriving late (an offline queue, CH27) is not stored again (issue 14).
        var rows = processor.rows
        let scrubbed = deletedSubjects.scrub(&rows)
        if scrubbed > 0 { metrics.deletedUserIDsDropped.increment(by: scrubbed) }
        let batch = IngestBatch(
            receivedTimeMs: Int64(now.timeIntervalSince1970 * 1000), keyID: key.id, catalogVersion: catalogVersion,
            sentAtMs: envelope.sentAt.map { $0.seconds * 1000 + Int64($0.nanoseconds / 1_000_000) }, bodyBytes: body.count,
            rows: rows, rejected: processor.rejected
        )
        let commitStarted = DispatchTime.now().uptimeNanoseconds
        let result: AppendResult
        do {
            result = try await store.append(batch)
        } catch .overloaded {
            throw RequestError.rateLimited(retryAfterSeconds: 1)
        } catch {
            throw RequestError.storeUnavailable(retryAfterSeconds: 5)
        }
        metrics.commitDuration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - commitStarted))
        metrics.accepted.increment(by: result.accepted)
        metrics.duplicates.increment(by: result.duplicates)
        metrics.rejected.increment(by: processor.rejections.count)
        for rejection in processor.rejections {
            for code in Set(rejection.issues.map(\.code.rawValue)) { metrics.rejected(code: code) }
        }
        return .json(200, processor.receipt(result, catalogVersion: catalogVersion))
    }

    func checkContentType(_ headers: [String: String]) throws {
        let type = headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else { throw RequestError.unsupportedMediaType("Content-Type must be application/json") }
    }

    /// Whether the body is gzip; other encodings are refused.
    func checkEncoding(_ headers: [String: String]) throws -> Bool {
        switch headers["content-encoding"]?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "", "identity": return false
        case "gzip": return true
        default: throw RequestError.unsupportedMediaType("Content-Encoding must be gzip or identity")
        }
    }

    /// Checks the `Authorization` header for `target`: refusals that need no cryptography first
    /// (malformed header, unknown or revoked key, stale timestamp), then the HMAC, then the scope.
    /// HZ1 signatures (no method or target) are accepted for `POST /v1/batch` only; every other
    /// route needs HZ2, and admin requests are refused when their signature was already used.
    func authenticate(_ headers: [String: String], target: RequestSignature.Target, body: [UInt8], scope: KeyScope) throws -> IngestionKey {
        guard let value = headers["authorization"] else { throw RequestError.unauthorized("missing Authorization (\(RequestSignature.scheme))") }
        guard let header = RequestSignature.parse(value) else { throw RequestError.unauthorized("malformed Authorization") }
        let now = clock()
        guard let key = keys.key(id: header.keyID, now: now), key.hasValidSecret else { throw RequestError.unauthorized("invalid signature") }
        guard key.isActive else { throw RequestError.forbidden("key revoked") }
        let nowSeconds = Int64(now.timeIntervalSince1970)
        guard RequestSignature.isFresh(header.timestamp, now: nowSeconds) else { throw RequestError.clockSkew(serverTime: nowSeconds) }
        // HZ1 signs no method or path, so it is accepted only where older app builds send it:
        // POST /v1/batch. Everything else (admin routes, client settings) needs HZ2.
        guard header.scheme == .hz2 || (target.method == "POST" && target.path == "/v1/batch" && scope == .ingest) else {
            throw RequestError.unauthorized("only POST /v1/batch accepts \(RequestSignature.Scheme.hz1.rawValue); sign with \(RequestSignature.Scheme.hz2.rawValue)")
        }
        guard body.withUnsafeBytes({ RequestSignature.isValid(header, secret: key.secret, target: target, body: $0) }) else {
            throw RequestError.unauthorized("invalid signature")
        }
        guard key.scopes.contains(scope) else { throw RequestError.forbidden("key lacks the \(scope.rawValue) scope") }
        if scope == .admin, !replayGuard.claim(header.signature, timestamp: header.timestamp, now: nowSeconds) {
            throw RequestError.replayedSignature
        }
        return key
    }

    func checkRateLimits(keyID: String, events: Int, perInstall: [String: Double], now: Date) throws {
        let seconds = now.timeIntervalSince1970
        if let wait = keyBuckets.take([keyID: Double(events)], now: seconds) {
            metrics.rateLimitedKey.increment()
            throw RequestError.rateLimited(retryAfterSeconds: Self.retryAfter(wait))
        }
        if !perInstall.isEmpty, let wait = installBuckets.take(perInstall, now: seconds) {
            metrics.rateLimitedInstall.increment()
            throw RequestError.rateLimited(retryAfterSeconds: Self.retryAfter(wait))
        }
    }

    /// The install a batch's `Handz-Install` header names — an install_id as the validator
    /// accepts it (``UUIDFormat``), lowercased as ``BatchProcessor`` keys install budgets — or nil
    /// when there is none or it is not one.
    static func declaredInstall(_ value: String?) -> String? {
        guard var value = value?.trimmingCharacters(in: .whitespaces),
              value.withUTF8({ UUIDFormat.matches($0.baseAddress!, $0.count) }) else { return nil }
        value = value.lowercased()
        return value
    }

    /// Whole seconds to wait, 1…86,400 (a bucket refilling very slowly cannot overflow `Int`).
    static func retryAfter(_ seconds: Double) -> Int {
        seconds.isFinite ? max(1, Int(min(seconds, 86_400).rounded(.up))) : 60
    }

    // MARK: Admin routes

    /// `DELETE /v1/users/{user_id}` (admin scope): records a deletion request in the ledger and
    /// answers 202 with its id (issue 14 §1; CH33 §9, CH34 §8). The deletion worker inside `serve`
    /// carries it out; `GET /v1/deletions/{id}` reports progress. Idempotent: a repeated request
    /// answers with the request that already covers the user.
    public func forgetUser(_ userID: String, headers: [String: String], body: [UInt8], target: RequestSignature.Target) async -> IngestResponse {
        do {
            _ = try authenticate(headers, target: target, body: body, scope: .admin)
            guard StringFormat.uuid.matches(userID) else { throw RequestError.malformedEnvelope("user_id must be a UUID") }
            let nowMs = Int64(clock().timeIntervalSince1970 * 1000)
            let (request, created) = try await store.requestDeletion(userID: userID.lowercased(), nowMs: nowMs)
            logger.info("deletion requested", metadata: ["request_id": "\(request.id)", "new": "\(created)"])
            // This node drops the id from late events at once; the others at their next refresh.
            try? await refreshDeletedSubjects(nowMs: nowMs)
            deletionRequested.withLock { $0?() }
            return finish(.json(202, request.json()))
        } catch let error as RequestError {
            return finish(.error(error))
        } catch {
            return finish(.error(.storeUnavailable(retryAfterSeconds: 5)))
        }
    }

    /// Reloads ``deletedSubjects`` from the ledger: requests of the last ``DeletedSubjects/windowMs``.
    public func refreshDeletedSubjects(nowMs: Int64) async throws {
        let (salt, hashes) = try await store.deletedSubjects(receivedSinceMs: nowMs - DeletedSubjects.windowMs)
        deletedSubjects.replace(salt: salt, hashes: hashes)
    }

    /// `GET /v1/deletions/{request_id}` (admin scope): one request's progress from the ledger.
    public func deletionStatus(_ requestID: String, headers: [String: String], body: [UInt8], target: RequestSignature.Target) async -> IngestResponse {
        do {
            _ = try authenticate(headers, target: target, body: body, scope: .admin)
            guard StringFormat.uuid.matches(requestID) else { throw RequestError.malformedEnvelope("request_id must be a UUID") }
            guard let request = try await store.deletionRequest(id: requestID.lowercased()) else { throw RequestError.deletionNotFound }
            return finish(.json(200, request.json()))
        } catch let error as RequestError {
            return finish(.error(error))
        } catch {
            return finish(.error(.storeUnavailable(retryAfterSeconds: 5)))
        }
    }

    /// `POST /v1/admin/maintenance?seconds=N` (admin scope): answer batches with 503 and
    /// `Retry-After` for N seconds (0 ends it) — to drain clients before store maintenance.
    public func maintenance(seconds: Int, headers: [String: String], body: [UInt8], target: RequestSignature.Target) -> IngestResponse {
        do {
            _ = try authenticate(headers, target: target, body: body, scope: .admin)
            guard (0...86_400).contains(seconds) else { throw RequestError.malformedEnvelope("seconds must be 0-86400") }
            let until = seconds > 0 ? clock().addingTimeInterval(Double(seconds)) : nil
            maintenanceUntil.withLock { $0 = until }
            logger.notice("maintenance mode", metadata: ["seconds": "\(seconds)"])
            return finish(.json(200, "{\"maintenance_seconds\":\(seconds)}"))
        } catch let error as RequestError {
            return finish(.error(error))
        } catch {
            return finish(.error(.storeUnavailable(retryAfterSeconds: 1)))
        }
    }

    /// `POST /v1/admin/reload` (admin scope): re-read and lint the catalog; the old one stays on failure.
    public func reloadCatalog(headers: [String: String], body: [UInt8], target: RequestSignature.Target) -> IngestResponse {
        do {
            _ = try authenticate(headers, target: target, body: body, scope: .admin)
            let version = try reloadCatalog()
            return finish(.json(200, "{\"catalog_version\":\(JSONString.quoted(version))}"))
        } catch let error as RequestError {
            return finish(.error(error))
        } catch {
            return finish(.error(.catalogInvalid("the catalog has problems; run handz-analytics catalog lint")))
        }
    }

    /// Re-reads the catalog (SIGHUP, admin route). Returns the new version.
    @discardableResult
    public func reloadCatalog() throws -> String {
        guard let catalogLoader else { throw RequestError.catalogInvalid("this server cannot reload its catalog") }
        let set = try catalogLoader()
        catalog.replace(with: set.current, releases: set.releases)
        logger.info("catalog reloaded", metadata: ["catalog_version": "\(set.current.version)", "releases": "\(set.releases.count)"])
        return set.current.version
    }

    /// `GET /health`: 200 when the store is writable and a catalog is loaded, 503 otherwise.
    public func health() -> IngestResponse {
        let healthy = store.isHealthy
        let lifecycle = lifecycle.withLock { $0 }
        let body = "{\"status\":\"\(healthy ? "ok" : "unavailable")\",\"store\":\"\(store.engine)\",\"store_writable\":\(healthy),\"catalog_version\":\(JSONString.quoted(catalog.current.version)),\"schema_version\":\(StoreSchema.currentVersion),"
            + lifecycle.jsonFields + "}"
        return .json(healthy ? 200 : 503, body)
    }
}

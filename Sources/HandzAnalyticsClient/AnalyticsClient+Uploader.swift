import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HandzAnalyticsCore
import HandzCompression
import HandzSigning

/// The uploader thread: one signed, gzip-compressed batch at a time, and the server's settings.
extension AnalyticsClient {
    func uploadLoop() {
        while true {
            lock.lock()
            var refreshOnly = false
            while running {
                let now = clock()
                if queueHasEvents && now.timeIntervalSince(lastFlushCheck) >= settings.flushInterval {
                    lastFlushCheck = now
                    uploadRequested = true
                }
                let due = nextAttempt.map { $0 <= now } ?? true
                let allowed = enabled && !sendingStopped && !backgroundExpired
                if allowed && !settings.disabled && uploadRequested && due { break }
                // Switched off by the server: only its settings are fetched again, when due.
                if allowed && settings.disabled && settingsDue(now) { refreshOnly = true; break }
                endBackgroundWorkIfDone()
                // Sleep until something can change the answer: a retry coming due, or the flush
                // timer while events are queued; with neither, until a signal (a commit, flush,
                // consent, credentials, lifecycle or shutdown). No timer while idle.
                var wake: Date?
                if allowed && !settings.disabled && uploadRequested, let next = nextAttempt { wake = next }
                if allowed && !settings.disabled && queueHasEvents {
                    wake = min(wake ?? .distantFuture, lastFlushCheck.addingTimeInterval(settings.flushInterval))
                }
                if allowed && settings.disabled, let fetched = settingsFetchedAt {
                    wake = min(wake ?? .distantFuture, fetched.addingTimeInterval(configuration.settingsRefreshInterval))
                }
                // At least 10 ms, so a deadline just passed is not a busy loop.
                time.wait(.uploader, on: lock, until: wake.map { max($0, now.addingTimeInterval(0.01)) })
                wakeUpCount += 1
            }
            if !running {
                lock.unlock()
                break
            }
            if refreshOnly {
                lock.unlock()
                refreshSettings()
                continue
            }
            uploadRequested = false
            lock.unlock()
            let now = clock()
            if lock.withLock({ settingsDue(now) }) { refreshSettings() }
            let (limit, disabled) = lock.withLock { (min(settings.maxBatchEvents, splitLimit ?? settings.maxBatchEvents), settings.disabled) }
            if !disabled { uploadOnce(limit: limit) }
            lock.withLock { endBackgroundWorkIfDone() }
        }
        lock.withLock { threadsRunning -= 1; lock.broadcast() }
    }

    /// Whether the server's settings are to be fetched (never yet, or longer ago than the refresh
    /// interval). Caller holds `lock`.
    func settingsDue(_ now: Date) -> Bool {
        settingsFetchedAt.map { now.timeIntervalSince($0) >= configuration.settingsRefreshInterval } ?? true
    }

    /// Fetches `GET /v1/client-config` once (signed, with the ETag of the settings in force) and
    /// applies it bounded (``RemoteSettings``). Unreachable, refused or unreadable: the settings in
    /// force stay until the next refresh.
    func refreshSettings() {
        let (url, target) = route("v1/client-config", method: "GET")
        let outcome = exchange {
            var request = URLRequest(url: url)
            request.httpMethod = "GET"
            let signedAt = Self.signingTime(clock().timeIntervalSince1970 + clockOffset)
            request.setValue(RequestSignature.authorization(keyID: credentials.keyID, secret: credentials.secret, timestamp: signedAt,
                                                            target: target, body: [UInt8]()), forHTTPHeaderField: "Authorization")
            if let settingsETag { request.setValue(settingsETag, forHTTPHeaderField: "If-None-Match") }
            return request
        }
        let now = clock()
        guard case .success(let answer)? = outcome, answer.status == 200,
              let applied = RemoteSettings(json: answer.body, local: configuration, catalogVersion: catalogVersionInUse) else {
            lock.withLock { settingsFetchedAt = now }
            return
        }
        lock.withLock {
            settings = applied
            settingsETag = answer.headers["etag"]
            settingsFetchedAt = now
            if applied.disabled { lastError = "disabled_by_server" }
            lock.broadcast()
        }
        withDatabase {
            try queue.setState("client_config", String(decoding: answer.body, as: UTF8.self))
            try queue.setState("client_config_etag", answer.headers["etag"])
        }
    }

    /// Sends the oldest queued events once and settles the outcome.
    func uploadOnce(limit: Int) {
        let now = clock()
        withDatabase { _ = try queue.expire(olderThanMs: Int64((now.timeIntervalSince1970 - configuration.maxEventAge) * 1000)) }
        // Read and, when empty, mark the queue empty under the database lock, so a commit cannot
        // slip in between (it sets the mark under the same lock).
        let rows = withDatabase { () throws -> [EventQueue.Row] in
            let rows = try queue.batch(maxEvents: limit, maxBytes: configuration.maxBatchBytes)
            if rows.isEmpty { lock.withLock { queueHasEvents = false } }
            return rows
        }
        guard let rows, !rows.isEmpty else { return }
        // The catalog the batch's events were validated against, so the server validates them
        // against the same release (docs/catalog-releases.md).
        let version = rows[0].catalogVersion.map { ",\"catalog_version\":\(JSONString.quoted($0))" } ?? ""
        var body = Array("{\"sent_at\":\"\(TimestampFormat.format(seconds: Int64(now.timeIntervalSince1970)))\"\(version),\"events\":[".utf8)
        for (index, row) in rows.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += Self.withUser(row.body, row.userID)
        }
        body += Array("]}".utf8)
        let compressed = Gzip.compress(body)

        let (url, target) = route("v1/batch", method: "POST")
        // Lets the server refuse an install already over its budget before it decompresses
        // anything (HandzServer docs, "The ingestion API", the 429 row of "Errors").
        let install = lock.withLock { installID }
        let outcome = exchange {
            let signedAt = Self.signingTime(clock().timeIntervalSince1970 + clockOffset)
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.httpBody = Data(compressed)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
            request.setValue(install, forHTTPHeaderField: "Handz-Install")
            request.setValue(RequestSignature.authorization(keyID: credentials.keyID, secret: credentials.secret, timestamp: signedAt,
                                                            target: target, body: compressed), forHTTPHeaderField: "Authorization")
            return request
        }
        guard let result = outcome else { return }
        settle(result, rows: rows)
    }

    /// The URL of `relative` under the endpoint, and what an HZ2 signature covers of it: the path
    /// and query as sent, percent-encoding intact.
    func route(_ relative: String, method: String) -> (URL, RequestSignature.Target) {
        let url = configuration.endpoint.appendingPathComponent(relative)
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        return (url, RequestSignature.Target(method: method, path: components?.percentEncodedPath ?? "/" + relative,
                                             query: components?.percentEncodedQuery ?? ""))
    }

    /// Sends the request `build` makes and waits for the answer. `build` runs under `lock` (it may
    /// read the credentials and clock offset); the request starts only while sending is allowed,
    /// atomically with `setEnabled(false)`, and is the one a cancel reaches (opt-out, expired
    /// background time, shutdown). Nil when it did not start.
    func exchange(_ build: () -> URLRequest) -> Result<HTTPAnswer, any Error>? {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<HTTPAnswer, any Error>?>(nil)
        lock.lock()
        guard enabled, running, !sendingStopped, !backgroundExpired else {
            lock.unlock()
            return nil
        }
        uploadTask = transport.start(build()) { result in
            outcome.set(result)
            done.signal()
        }
        lock.unlock()
        done.wait()
        lock.withLock { uploadTask = nil }
        return outcome.get()
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HandzAnalyticsCore

/// What an answer means for the batch sent: delivered, split, retried or stopped (CH31 error codes).
extension AnalyticsClient {
    func settle(_ result: Result<HTTPAnswer, any Error>, rows: [EventQueue.Row]) {
        let now = clock()
        switch result {
        case .failure:
            lock.withLock {
                lastStatus = nil
                lastError = enabled ? "network error" : "upload cancelled (analytics off)"
                scheduleRetry(retryAfter: nil, now: now)
            }
        case .success(let answer):
            lock.withLock { lastStatus = answer.status }
            switch answer.status {
            case 200:
                guard let rejected = Self.settledRejections(answer.body, rows: rows) else {
                    // Not our receipt (a captive portal, a proxy): nothing is known to be stored.
                    lock.withLock {
                        lastError = "unexpected response (no receipt)"
                        scheduleRetry(retryAfter: nil, now: now)
                    }
                    return
                }
                let rejectedSeqs = Set(rejected.map(\.0))
                withDatabase { try queue.settle(delivered: rows.map(\.seq).filter { !rejectedSeqs.contains($0) }, rejected: rejected) }
                lock.withLock {
                    attempt = 0
                    skewCorrections = 0
                    nextAttempt = nil
                    lastError = nil
                    if let split = splitLimit { splitLimit = split * 2 >= settings.maxBatchEvents ? nil : split * 2 }
                    uploadRequested = true  // keep going while events are queued; the server paces us
                }
            case 400, 413:
                // Isolate the offender: halve the batch; a single event refused alone is dropped.
                if rows.count == 1 {
                    let code = Self.errorCode(answer.body) ?? (answer.status == 413 ? "payload_too_large" : "malformed_envelope")
                    withDatabase { try queue.settle(delivered: [], rejected: [(rows[0].seq, code)]) }
                    lock.withLock { splitLimit = nil; uploadRequested = true; lastError = code }
                } else {
                    lock.withLock { splitLimit = max(1, rows.count / 2); uploadRequested = true; lastError = Self.errorCode(answer.body) }
                }
            case 401 where Self.errorCode(answer.body) == "clock_skew":
                // Our clock is off: take the server's time, sign again with the offset, go on.
                let serverTime = Self.serverTime(answer)
                lock.withLock {
                    lastError = "clock_skew"
                    skewCorrections += 1
                    if let serverTime { clockOffset = serverTime - now.timeIntervalSince1970 }
                    if serverTime != nil && skewCorrections <= 3 {
                        uploadRequested = true
                    } else {
                        scheduleRetry(retryAfter: nil, now: now)
                    }
                }
            case 401, 403:
                lock.withLock {
                    sendingStopped = true
                    lastError = Self.errorCode(answer.body) ?? (answer.status == 401 ? "unauthorized" : "forbidden")
                }
            case 408, 429, 500...599:
                // 408: the body took longer than the server waits (a slow network): send again later.
                lock.withLock {
                    lastError = Self.errorCode(answer.body) ?? "http \(answer.status)"
                    scheduleRetry(retryAfter: Backoff.retryAfter(answer.headers["retry-after"], now: now), now: now)
                }
            default:
                // Another client error means a configuration problem: stop and report.
                lock.withLock { sendingStopped = true; lastError = Self.errorCode(answer.body) ?? "http \(answer.status)" }
            }
        }
    }

    /// Caller holds `lock`.
    func scheduleRetry(retryAfter: TimeInterval?, now: Date) {
        // A request cancelled by an opt-out or shutdown is not retried.
        guard enabled, running else { return }
        attempt += 1
        let delay = backoff.delay(attempt: attempt, retryAfter: retryAfter, random: Double.random(in: 0...1, using: &random))
        nextAttempt = now.addingTimeInterval(delay)
        uploadRequested = true
    }

    /// (seq, first error code) of each event a 200's receipt rejected — or nil when the body is not
    /// a receipt for exactly these rows: `accepted`, `duplicates` and `rejected` must be present,
    /// every rejected index distinct and in range, and `accepted + duplicates + rejected` equal to
    /// the number of events sent.
    static func settledRejections(_ body: Data, rows: [EventQueue.Row]) -> [(Int64, String)]? {
        guard let receipt = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let accepted = receipt["accepted"] as? Int, let duplicates = receipt["duplicates"] as? Int,
              let rejected = receipt["rejected"] as? [[String: Any]],
              (0...rows.count).contains(accepted), (0...rows.count).contains(duplicates),
              accepted + duplicates + rejected.count == rows.count else { return nil }
        var result: [(Int64, String)] = []
        var seen = Set<Int>()
        for entry in rejected {
            guard let index = entry["index"] as? Int, index >= 0, index < rows.count, seen.insert(index).inserted else { return nil }
            let code = ((entry["errors"] as? [[String: Any]])?.first?["code"] as? String) ?? "rejected"
            result.append((rows[index].seq, code))
        }
        return result
    }

    /// The server's time from a `clock_skew` answer: the body's `server_time` (unix seconds), else
    /// the `Date` header — either only when it is a plausible time (2000–2100): an answer from
    /// something else than the endpoint must not be able to push the signing clock anywhere.
    static func serverTime(_ answer: HTTPAnswer) -> TimeInterval? {
        let plausible = 946_684_800.0...4_102_444_800.0
        let error = (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["error"] as? [String: Any]
        if let seconds = (error?["server_time"] as? NSNumber)?.doubleValue, plausible.contains(seconds) { return seconds }
        return answer.headers["date"].flatMap(Backoff.httpDate)?.timeIntervalSince1970.within(plausible)
    }

    /// Whole unix seconds to sign with; never traps, whatever the clock and offset say.
    static func signingTime(_ seconds: TimeInterval) -> Int64 {
        guard seconds.isFinite else { return 0 }
        return Int64(min(max(seconds, 0), 4_102_444_800).rounded(.down))
    }

    static func errorCode(_ body: Data) -> String? {
        ((try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
    }
}

extension Comparable {
    /// Nil when outside `range`, the value otherwise.
    func within(_ range: ClosedRange<Self>) -> Self? { range.contains(self) ? self : nil }
}

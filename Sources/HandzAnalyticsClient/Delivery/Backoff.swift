import Foundation

/// Retry timing after a failed upload: exponential backoff with full jitter — a random delay in
/// [0, min(cap, base · 2^attempt)] — with a 100 ms floor so a run of small draws cannot become a
/// tight loop. A server's `Retry-After` wins when it asks for longer.
struct Backoff: Sendable {
    let base: TimeInterval
    let cap: TimeInterval

    func delay(attempt: Int, retryAfter: TimeInterval?, random: Double) -> TimeInterval {
        let window = min(cap, base * pow(2, Double(min(attempt, 30))))
        let jittered = max(0.1, window * random)
        if let retryAfter { return max(retryAfter, min(jittered, cap)) }
        return jittered
    }

    /// The longest wait a `Retry-After` is taken for: a day. A larger (or not finite) value from a
    /// server or a proxy is read as a day, so no answer can stop delivery for good.
    static let maxRetryAfter: TimeInterval = 86_400

    /// `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3), 0…a day.
    static func retryAfter(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = TimeInterval(value) {
            guard seconds.isFinite else { return maxRetryAfter }
            return min(max(0, seconds), maxRetryAfter)
        }
        guard let date = httpDate(value) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), maxRetryAfter)
    }

    /// An IMF-fixdate (`Wed, 25 Nov 2026 03:37:37 GMT`, RFC 9110 §5.6.7), as in `Date` and `Retry-After`.
    static func httpDate(_ value: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value.trimmingCharacters(in: .whitespaces))
    }
}

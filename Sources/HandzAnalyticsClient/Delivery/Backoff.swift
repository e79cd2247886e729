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

    /// `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
    static func retryAfter(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = TimeInterval(value) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

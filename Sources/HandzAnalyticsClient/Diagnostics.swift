import Foundation
import HandzAnalyticsCore

/// What the hidden developer screen shows (CH33 §12): enabled state, queue, last events (names and
/// times only), last upload result, last error, next retry, and the local-only counters.
public struct ClientDiagnostics: Sendable, Equatable {
    public struct RecentEvent: Sendable, Equatable {
        public let name: String
        public let time: Date
    }

    public var enabled: Bool
    public var queuedEvents: Int
    public var queuedBytes: Int
    /// Age of the oldest queued event, seconds.
    public var oldestEventAge: TimeInterval?
    /// The last 10 tracked events, newest last.
    public var recentEvents: [RecentEvent]
    /// HTTP status of the last upload (nil before the first, or after a network error).
    public var lastUploadStatus: Int?
    /// The last error: an error code or a short reason, never a value.
    public var lastError: String?
    public var nextRetry: Date?
    /// Sending stopped because the key was refused (401/403) until the configuration changes.
    public var sendingStopped: Bool
    /// tracked, delivered, and `dropped.<reason>` counters.
    public var counters: [String: Int]
    /// The settings in force: the server's (`GET /v1/client-config`), bounded, or the local ones.
    public var flushInterval: TimeInterval = 0
    public var maxBatchEvents = 0
    /// The server switched off sending for this app's catalog version.
    public var disabledByServer = false

    public var tracked: Int { counters["tracked"] ?? 0 }
    public var delivered: Int { counters["delivered"] ?? 0 }
    public var dropped: Int { counters.filter { $0.key.hasPrefix("dropped.") }.values.reduce(0, +) }
    public func dropped(_ reason: DropReason) -> Int { counters["dropped." + reason.key] ?? 0 }

    /// `tracked = delivered + dropped + queued`.
    public var isBalanced: Bool { tracked == delivered + dropped + queuedEvents }

    /// One JSON object (for `handz-analytics send` and `queue stats`).
    public var json: String {
        var out = "{\"enabled\":\(enabled),\"queued_events\":\(queuedEvents),\"queued_bytes\":\(queuedBytes)"
        out += ",\"oldest_event_age_seconds\":" + (oldestEventAge.map { String(Int($0)) } ?? "null")
        out += ",\"recent_events\":[" + recentEvents.map { "{\"name\":\(JSONString.quoted($0.name)),\"time\":\"\(ISO8601DateFormatter().string(from: $0.time))\"}" }.joined(separator: ",") + "]"
        out += ",\"last_upload_status\":" + (lastUploadStatus.map(String.init) ?? "null")
        out += ",\"last_error\":" + (lastError.map(JSONString.quoted) ?? "null")
        out += ",\"next_retry\":" + (nextRetry.map { "\"\(ISO8601DateFormatter().string(from: $0))\"" } ?? "null")
        out += ",\"sending_stopped\":\(sendingStopped)"
        out += ",\"counters\":{" + counters.keys.sorted().map { "\(JSONString.quoted($0)):\(counters[$0]!)" }.joined(separator: ",") + "}"
        out += ",\"balanced\":\(isBalanced)}"
        return out
    }
}

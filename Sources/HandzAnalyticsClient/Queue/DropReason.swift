/// Why the client let go of an event without delivering it — kept as local-only counters, never
/// uploaded (CH33 §9 "emit local-only counter (do NOT upload special event)").
public enum DropReason: Sendable, Hashable, CustomStringConvertible {
    /// The queue held its maximum number of events; the oldest went.
    case capEvents
    /// The queue held its maximum bytes; the oldest went.
    case capBytes
    /// The event failed validation on the device and was never queued.
    case invalid
    /// The server rejected it, with this validation or request error code.
    case rejectedByServer(code: String)
    /// Older than the maximum age.
    case expired
    /// Analytics was turned off: the queue was purged (CH33 §2.2).
    case purgedOptOut
    /// Crash reports were turned off: queued `crash_reported` events were removed (CH33 §2.2).
    case purgedCrashOptOut
    /// The queue file was damaged and the event could not be read back.
    case corrupt

    /// The counter's stored name.
    public var key: String {
        switch self {
        case .capEvents: "cap_events"
        case .capBytes: "cap_bytes"
        case .invalid: "invalid"
        case .rejectedByServer(let code): "rejected_by_server." + code
        case .expired: "expired"
        case .purgedOptOut: "purged_opt_out"
        case .purgedCrashOptOut: "purged_crash_opt_out"
        case .corrupt: "corrupt"
        }
    }

    public var description: String { key }
}

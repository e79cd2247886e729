import Foundation
import HandzAnalyticsCore

/// Tracking: events in, validated on the device, handed to the committer (CH33 §3, §12).
extension AnalyticsClient {
    /// Tracks a catalogued event. Never blocks on disk or network; an event that fails on-device
    /// validation is counted (`invalid`) and never queued. Does nothing while analytics is off.
    public func track(_ event: some AnalyticsEvent) {
        var writer = PropertyWriter()
        event.writeProperties(to: &writer)
        track(name: type(of: event).eventName, propertiesJSON: writer.object)
    }

    func track(name: String, propertiesJSON: String) {
        let now = clock()
        lock.lock()
        defer { lock.unlock() }
        guard enabled else { return }
        let milliseconds = Int64(now.timeIntervalSince1970 * 1000)
        let eventID = eventIDs.next(milliseconds: UInt64(max(0, milliseconds)), using: &random)
        var body = "{\"event_id\":\"\(eventID)\",\"event_name\":"
        JSONString.append(name, to: &body)
        body += ",\"event_time_utc\":\"\(TimestampFormat.format(seconds: milliseconds / 1000, nanoseconds: Int32(milliseconds % 1000) * 1_000_000))\""
        body += ",\"app_version\":\(JSONString.quoted(context.appVersion)),\"build_number\":\(JSONString.quoted(context.buildNumber))"
        body += ",\"platform\":\"iOS\",\"os_version\":\(JSONString.quoted(context.osVersion)),\"device_model\":\(JSONString.quoted(context.deviceModel))"
        body += ",\"locale\":\(JSONString.quoted(context.locale)),\"timezone\":\(JSONString.quoted(context.timeZone))"
        body += ",\"session_id\":\"\(sessionID)\",\"install_id\":\"\(installID)\",\"user_state\":\"\(context.userState.rawValue)\""
        body += ",\"analytics_opt_in\":true,\"network_state\":\"\((platformNetwork ?? context.networkState).rawValue)\",\"properties\":\(propertiesJSON)}"
        admit(name: name, timeMs: milliseconds, body: Array(body.utf8), userID: userID, now: now)
    }

    /// Queues a complete event as given (for `handz-analytics send` and backfills): validated like
    /// any other; its user_id, if any, is kept apart so sign-out can still remove it.
    public func enqueue(rawEvent bytes: [UInt8]) {
        let now = clock()
        lock.lock()
        defer { lock.unlock() }
        guard enabled else { return }
        var body = bytes
        var user: String?
        if let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], let id = object["user_id"] as? String {
            user = id
            var stripped = object
            stripped["user_id"] = nil
            if let data = try? JSONSerialization.data(withJSONObject: stripped, options: [.sortedKeys]) { body = Array(data) }
        }
        let verdict = validator.validate(Self.withUser(body, user))
        let name = verdict.eventName ?? "unknown"
        let time = now.timeIntervalSince1970 * 1000
        admit(name: name, timeMs: Int64(time), body: body, userID: user, now: now, verdict: verdict)
    }

    /// The event the crash-report toggle governs (sent on the next launch after a crash).
    static let crashEventName = "crash_reported"

    /// Validates (unless already done) and adds to the pending commit. Caller holds `lock`.
    /// A crash report while crash reports are off is not recorded at all, like any event while
    /// analytics is off.
    func admit(name: String, timeMs: Int64, body: [UInt8], userID: String?, now: Date, verdict: Verdict? = nil) {
        if name == Self.crashEventName && !crashReportsEnabled { return }
        let verdict = verdict ?? validator.validate(Self.withUser(body, userID))
        recent.append(.init(name: name, time: now))
        if recent.count > 10 { recent.removeFirst(recent.count - 10) }
        if verdict.isAccepted {
            pending.append(EventQueue.Pending(name: name, timeMs: timeMs, body: body, userID: userID))
        } else {
            pendingInvalid += 1
        }
        // The first pending event wakes the committer (asleep without a timer while idle); 256
        // wake it early.
        if pending.count + pendingInvalid == 1 || pending.count >= 256 { lock.broadcast() }
    }

    /// The event as sent: `user_id` inserted first when there is one.
    static func withUser(_ body: [UInt8], _ userID: String?) -> [UInt8] {
        guard let userID, body.first == UInt8(ascii: "{") else { return body }
        return Array("{\"user_id\":\"\(userID)\",".utf8) + body.dropFirst()
    }
}

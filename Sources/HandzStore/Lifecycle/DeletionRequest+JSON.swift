import HandzAnalyticsCore

extension DeletionRequest {
    /// The request as JSON, for `GET /v1/deletions/{id}`, the 202 of `DELETE /v1/users/{id}` and
    /// `handz-analytics deletions`: ids, times, steps and counts — never the user id. The salted
    /// hash is shown only to the command line's privacy review (`includeHash`).
    public func json(includeHash: Bool = false) -> String {
        var fields = [
            "\"request_id\":\(JSONString.quoted(id))",
            "\"state\":\(JSONString.quoted(state.rawValue))",
            "\"received_time_ms\":\(receivedTimeMs)",
            "\"completed_time_ms\":\(completedTimeMs.map(String.init) ?? "null")",
            "\"steps\":{\"store\":\(JSONString.quoted(storeStep.rawValue)),\"old_versions\":\(JSONString.quoted(oldVersionsStep.rawValue)),\"lake\":\(JSONString.quoted(lakeStep.rawValue))}",
            "\"events_deidentified\":\(eventsDeidentified)",
            "\"installs_deidentified\":\(installsDeidentified)",
            "\"sessions_deidentified\":\(sessionsDeidentified)",
            "\"partitions_rewritten\":\(partitionsRewritten)",
            "\"attempts\":\(attempts)",
            "\"last_error\":\(lastError.map(JSONString.quoted) ?? "null")",
        ]
        if includeHash { fields.insert("\"subject_hash\":\(JSONString.quoted(subjectHash))", at: 1) }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

extension LifecycleStatus {
    /// `/health` fields (without braces): the retention in force and the ages an alert watches.
    public func jsonFields(retention: RetentionPolicy) -> String {
        "\"retention\":\(JSONString.quoted(retention.description)),\"oldest_event_ms\":\(oldestEventMs.map(String.init) ?? "null"),"
            + "\"pending_deletions\":\(pendingDeletions),\"oldest_pending_deletion_ms\":\(oldestPendingDeletionMs.map(String.init) ?? "null")"
    }
}

import HandzAnalyticsCore
import HandzStore

/// One line of a lake data file: a JSON object with the columns of `events` in table order,
/// `event_id` as canonical UUID text and `properties` as a JSON **string** holding the object,
/// so every engine reads it with its usual JSON functions (`get_json_object`, `JSONExtract`,
/// `json_extract_string`) exactly as it reads the `events` table.
enum LakeRow {
    static func line(_ event: ExportedEvent) -> String {
        var out = "{"
        func text(_ key: String, _ value: String?) {
            if out.utf8.count > 1 { out += "," }
            out += "\"\(key)\":" + (value.map(JSONString.quoted) ?? "null")
        }
        func integer(_ key: String, _ value: Int64) {
            out += ",\"\(key)\":\(value)"
        }
        text("event_id", event.eventID)
        text("event_name", event.eventName)
        integer("event_time_ms", event.eventTimeMs)
        integer("received_time_ms", event.receivedTimeMs)
        text("install_id", event.installID)
        text("session_id", event.sessionID)
        text("user_id", event.userID)
        text("user_state", event.userState)
        text("app_version", event.appVersion)
        text("build_number", event.buildNumber)
        text("platform", event.platform)
        text("os_version", event.osVersion)
        text("device_model", event.deviceModel)
        text("locale", event.locale)
        text("timezone", event.timezone)
        text("network_state", event.networkState)
        text("key_id", event.keyID)
        text("catalog_version", event.catalogVersion)
        text("properties", event.properties)
        return out + "}\n"
    }
}

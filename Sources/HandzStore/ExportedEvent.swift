/// One stored event as the lake export writes it (`handz-analytics export lake`): every column of
/// `events`, `event_id` as canonical lowercase UUID text, `properties` as the JSON text of the
/// object. Both stores produce it, so the lake does not depend on which store wrote the events.
public struct ExportedEvent: Sendable, Equatable {
    public var eventID: String
    public var eventName: String
    public var eventTimeMs: Int64
    public var receivedTimeMs: Int64
    public var installID: String
    public var sessionID: String
    public var userID: String?
    public var userState: String
    public var appVersion: String
    public var buildNumber: String
    public var platform: String
    public var osVersion: String
    public var deviceModel: String
    public var locale: String
    public var timezone: String
    public var networkState: String
    public var keyID: String
    public var catalogVersion: String
    public var properties: String

    /// The columns in table order, as one SELECT list (event_id and properties spelled by the
    /// caller, since each engine stores them differently).
    public static func selectList(eventID: String, properties: String) -> String {
        """
        \(eventID), event_name, event_time_ms, received_time_ms, install_id, session_id, user_id, user_state, app_version,
        build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, \(properties)
        """
    }

    /// Builds one from the 19 columns of ``selectList(eventID:properties:)`` read by `text` and `integer`.
    public static func read(text: (Int) -> String?, integer: (Int) -> Int64) -> ExportedEvent {
        ExportedEvent(
            eventID: text(0) ?? "", eventName: text(1) ?? "", eventTimeMs: integer(2), receivedTimeMs: integer(3),
            installID: text(4) ?? "", sessionID: text(5) ?? "", userID: text(6), userState: text(7) ?? "",
            appVersion: text(8) ?? "", buildNumber: text(9) ?? "", platform: text(10) ?? "", osVersion: text(11) ?? "",
            deviceModel: text(12) ?? "", locale: text(13) ?? "", timezone: text(14) ?? "", networkState: text(15) ?? "",
            keyID: text(16) ?? "", catalogVersion: text(17) ?? "", properties: text(18) ?? "{}")
    }
}

/// The order exports walk the store in: receive time, then event_id (byte order on SQLite equals
/// text order of the canonical UUID elsewhere), so an export of the same rows is the same bytes.
enum ExportOrder {
    static let sql = "ORDER BY received_time_ms, event_id"
}

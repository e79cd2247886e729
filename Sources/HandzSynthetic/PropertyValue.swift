import HandzAnalyticsCore

/// A scalar property value (the catalog has no containers).
public enum PropertyValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case boolean(Bool)

    func write(to json: inout JSONText) {
        switch self {
        case .string(let value): json.string(value)
        case .integer(let value): json.integer(value)
        case .boolean(let value): json.bool(value)
        }
    }
}

/// The envelope of one synthetic event: who, where, when (CH33 §3.2).
public struct EventContext: Sendable {
    public var installID: String
    public var sessionID: String
    public var userID: String?
    public var userState: String
    /// Event time, milliseconds since the epoch.
    public var timeMilliseconds: Int64
    public var appVersion: String
    public var buildNumber: String
    public var osVersion: String
    public var deviceModel: String
    public var locale: String
    public var timeZone: String
    public var networkState: String

    public init(installID: String, sessionID: String, userID: String?, userState: String, timeMilliseconds: Int64,
                appVersion: String = "1.4.2", buildNumber: String = "418", osVersion: String = "iOS 18.6",
                deviceModel: String = "iPhone15,2", locale: String = "en_US", timeZone: String = "America/New_York",
                networkState: String = "online") {
        self.installID = installID
        self.sessionID = sessionID
        self.userID = userID
        self.userState = userState
        self.timeMilliseconds = timeMilliseconds
        self.appVersion = appVersion
        self.buildNumber = buildNumber
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.locale = locale
        self.timeZone = timeZone
        self.networkState = networkState
    }
}

extension EventContext {
    /// The platform every synthetic event comes from.
    public static let platform = "iOS"

    /// The context's value of an envelope text column (CH33 §3.2), nil for one it does not
    /// supply (`event_name`, `properties`, the request's columns) and for `user_id` when signed out.
    public func envelopeText(_ column: EventColumn) -> String? {
        switch column {
        case .installID: installID
        case .sessionID: sessionID
        case .userID: userID
        case .userState: userState
        case .appVersion: appVersion
        case .buildNumber: buildNumber
        case .platform: Self.platform
        case .osVersion: osVersion
        case .deviceModel: deviceModel
        case .locale: locale
        case .timezone: timeZone
        case .networkState: networkState
        case .eventID, .eventName, .eventTimeMs, .receivedTimeMs, .keyID, .catalogVersion, .properties: nil
        }
    }
}

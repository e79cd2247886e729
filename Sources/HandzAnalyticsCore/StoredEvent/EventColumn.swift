/// One column of a stored event: the one description of the `events` table (issue 33 §7).
///
/// Everything that writes or reads a whole stored event takes its columns, their order, kind and
/// nullability from here: the embedded store's insert and the PostgreSQL store's grouped insert,
/// the packed rows ingestion fills (`HandzStore.EventRows`), the seal that turns the log into
/// column chunks, both stores' exports and the lake's rows, the DDL `handz-analytics sql ddl`
/// prints for each dialect (`HandzQuery.EventsDDL`), the lake readers, and the synthetic events.
/// The stores' shipped migrations are history and stay as written ("never edit a shipped
/// migration"); tests hold each store's migrated table to this description column by column.
///
/// The order of the cases is the table's column order. A new column is a new case here, a new
/// migration in each store, and nothing else.
public enum EventColumn: Int, CaseIterable, Sendable {
    case eventID
    case eventName
    case eventTimeMs
    case receivedTimeMs
    case installID
    case sessionID
    case userID
    case userState
    case appVersion
    case buildNumber
    case platform
    case osVersion
    case deviceModel
    case locale
    case timezone
    case networkState
    case keyID
    case catalogVersion
    case properties

    /// How a column's values are held.
    public enum Kind: Sendable {
        /// The client's UUID: 16 bytes on SQLite, canonical lower-case text elsewhere (whose
        /// order equals the bytes' order, so every engine breaks time ties alike).
        case eventID
        /// Text: an envelope field (CH33 §3.2) or the request's key and catalog.
        case text
        /// Epoch milliseconds (UTC).
        case integer
        /// The event's `properties` object, as JSON.
        case json
    }

    /// Where a stored value comes from.
    public enum Origin: Sendable {
        /// The event as the client sent it (CH33 §3.2 envelope, `properties`).
        case event
        /// The request that carried it, the same for every event of a batch: when the endpoint
        /// received it (CH33 §9), the key that signed it, the catalog it was validated against.
        case request
    }

    /// The SQL column name, and the key of the column in a lake row.
    public var name: String {
        switch self {
        case .eventID: "event_id"
        case .eventName: "event_name"
        case .eventTimeMs: "event_time_ms"
        case .receivedTimeMs: "received_time_ms"
        case .installID: "install_id"
        case .sessionID: "session_id"
        case .userID: "user_id"
        case .userState: "user_state"
        case .appVersion: "app_version"
        case .buildNumber: "build_number"
        case .platform: "platform"
        case .osVersion: "os_version"
        case .deviceModel: "device_model"
        case .locale: "locale"
        case .timezone: "timezone"
        case .networkState: "network_state"
        case .keyID: "key_id"
        case .catalogVersion: "catalog_version"
        case .properties: "properties"
        }
    }

    public var kind: Kind {
        switch self {
        case .eventID: .eventID
        case .eventTimeMs, .receivedTimeMs: .integer
        case .properties: .json
        default: .text
        }
    }

    public var origin: Origin {
        switch self {
        case .receivedTimeMs, .keyID, .catalogVersion: .request
        default: .event
        }
    }

    /// Only `user_id` may be NULL: signed out (CH33 §3.2), or after forget-user (CH34 §8.3).
    public var isNullable: Bool { self == .userID }

    /// Whether the value is a UUID the store keeps in canonical lower case (issue 21 §4), so
    /// deletion and joins match one exact form.
    public var isUUID: Bool { self == .installID || self == .sessionID || self == .userID }

    /// The column named `name`, if it is one.
    public init?(name: String) {
        guard let column = Self.byName[name] else { return nil }
        self = column
    }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })

    /// The table's name in every store and engine.
    public static let tableName = "events"

    /// The columns the event itself supplies as text (the envelope's text fields and
    /// `properties`), in table order: what ingestion copies out of each event's bytes.
    public static let eventText: [EventColumn] = allCases.filter { $0.origin == .event && ($0.kind == .text || $0.kind == .json) }

    /// The envelope's text columns (CH33 §3.2) and the request's: every `.text` column.
    public static let textColumns: [EventColumn] = allCases.filter { $0.kind == .text }

    /// The columns that name a release — the app's and the catalog's — which any figure may be
    /// broken down by (`--breakdown catalog_version`).
    public static let versionColumns: [EventColumn] = [.catalogVersion, .appVersion]
}

/// The `events` table every engine holds: the embedded store's columns (`HandzStore.StoreSchema`),
/// with `event_id` as 16 bytes on SQLite and as canonical lowercase UUID text elsewhere.
///
/// The tie-break of the funnel order is `event_id`. Lexicographic order of canonical lowercase
/// UUID text equals byte order of the 16 bytes (hex digits `0-9a-f` sort as the nibbles they
/// encode, and the dashes sit at the same places in every value), so SQLite's BLOB order and
/// every other engine's text order agree. PostgreSQL's column uses `COLLATE "C"` so a locale
/// cannot reorder it.
public enum EventsTable {
    public enum ColumnType: Sendable { case eventID, text, integer, json }

    public struct Column: Sendable, Equatable {
        public let name: String
        public let type: ColumnType
        public let nullable: Bool
    }

    public static let name = "events"

    public static let columns: [Column] = [
        Column(name: "event_id", type: .eventID, nullable: false),
        Column(name: "event_name", type: .text, nullable: false),
        Column(name: "event_time_ms", type: .integer, nullable: false),
        Column(name: "received_time_ms", type: .integer, nullable: false),
        Column(name: "install_id", type: .text, nullable: false),
        Column(name: "session_id", type: .text, nullable: false),
        Column(name: "user_id", type: .text, nullable: true),
        Column(name: "user_state", type: .text, nullable: false),
        Column(name: "app_version", type: .text, nullable: false),
        Column(name: "build_number", type: .text, nullable: false),
        Column(name: "platform", type: .text, nullable: false),
        Column(name: "os_version", type: .text, nullable: false),
        Column(name: "device_model", type: .text, nullable: false),
        Column(name: "locale", type: .text, nullable: false),
        Column(name: "timezone", type: .text, nullable: false),
        Column(name: "network_state", type: .text, nullable: false),
        Column(name: "key_id", type: .text, nullable: false),
        Column(name: "catalog_version", type: .text, nullable: false),
        Column(name: "properties", type: .json, nullable: false),
    ]

    /// Envelope fields (CH33 §3.2) stored as their own text column; every other property lives
    /// in `properties`.
    public static let envelopeColumns: Set<String> = Set(columns.filter { $0.type == .text }.map(\.name))

    /// The columns that name a release — the app's and the catalog's — which any figure may be
    /// broken down by (`--breakdown catalog_version`).
    public static let versionColumns: Set<String> = ["catalog_version", "app_version"]
}

import HandzAnalyticsCore

/// The `events` table every engine holds, as the SQL builders see it: the columns of
/// `HandzAnalyticsCore.EventColumn` (the one description of a stored event), with `event_id` as
/// 16 bytes on SQLite and as canonical lowercase UUID text elsewhere.
///
/// The tie-break of the funnel order is `event_id`. Lexicographic order of canonical lowercase
/// UUID text equals byte order of the 16 bytes (hex digits `0-9a-f` sort as the nibbles they
/// encode, and the dashes sit at the same places in every value), so SQLite's BLOB order and
/// every other engine's text order agree. PostgreSQL's column uses `COLLATE "C"` so a locale
/// cannot reorder it.
public enum EventsTable {
    public static let name = EventColumn.tableName

    /// Every column, in table order.
    public static let columns: [EventColumn] = EventColumn.allCases

    /// Envelope fields (CH33 §3.2) stored as their own text column; every other property lives
    /// in `properties`.
    public static let envelopeColumns: Set<String> = Set(EventColumn.textColumns.map(\.name))

    /// The columns that name a release — the app's and the catalog's — which any figure may be
    /// broken down by (`--breakdown catalog_version`).
    public static let versionColumns: Set<String> = Set(EventColumn.versionColumns.map(\.name))
}

/// The analytical layer of the embedded store (issue 15): the same events as the log (`events`),
/// shaped for reading instead of writing.
///
/// - **Clustered by event name and time** (`WITHOUT ROWID`, primary key `(name_id,
///   event_time_ms, event_id)`): a query that names its events (every funnel, KPI and panel of
///   CH33 §7) reads only their key ranges, in time order, instead of the whole log.
/// - **Compact:** event names and the envelope strings that repeat from event to event
///   (`user_state` … `catalog_version`, CH33 §3.2) are interned into `event_names` and
///   `event_contexts`; install, session and user ids are their 16 bytes (`uuid_blob`), not 36
///   characters of text.
/// - **Derived:** every row comes from the log and can be rebuilt from it
///   (``AnalyticalLayer/empty(_:)``, then a catch-up). `analytic_state.folded_through_rowid` says how far the
///   layer has caught up; the log's `rowid`s only grow, so the rows after it are the ones still
///   to fold.
/// - **Read through a view:** ``eventsView`` shows the layer as a temporary `events` view with the
///   log's columns, so the SQL of the query builders runs on it unchanged.
///
/// The log keeps only what writing needs: the unique `event_id` index (dedupe) and the
/// `(install_id, event_time_ms)` index that the deletion store step looks installs up by. The
/// `(event_name, event_time_ms)` index, which only analysts used, is dropped: the layer's
/// clustering replaces it.
public enum AnalyticalLayerSchema {
    /// The context columns interned into `event_contexts`, in `events` column order.
    public static let contextColumns = [
        "user_state", "app_version", "build_number", "platform", "os_version", "device_model", "locale", "timezone",
        "network_state", "key_id", "catalog_version",
    ]

    /// Store migration 4.
    static let migrationSQL = """
    DROP INDEX IF EXISTS events_by_name_time;
    CREATE TABLE event_names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE event_contexts (
        id INTEGER PRIMARY KEY,
        \(contextColumns.map { "\($0) TEXT NOT NULL" }.joined(separator: ", ")),
        UNIQUE (\(contextColumns.joined(separator: ", ")))
    );
    CREATE TABLE analytic_events (
        name_id          INTEGER NOT NULL,  -- event_names.id
        event_time_ms    INTEGER NOT NULL,
        event_id         BLOB    NOT NULL,  -- as in the log: 16 bytes, the tie-break of the total order
        install          BLOB    NOT NULL,  -- uuid_blob(install_id)
        session          BLOB    NOT NULL,  -- uuid_blob(session_id)
        user             BLOB,              -- uuid_blob(user_id); NULL when signed out or de-identified
        context_id       INTEGER NOT NULL,  -- event_contexts.id
        received_time_ms INTEGER NOT NULL,  -- for retention, which cuts by receive time
        properties       TEXT    NOT NULL,
        PRIMARY KEY (name_id, event_time_ms, event_id)
    ) WITHOUT ROWID;
    CREATE TABLE analytic_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
    INSERT INTO analytic_state(key, value) VALUES ('folded_through_rowid', 0);
    """

    /// The layer as `events` with the log's columns (and their order), for one connection: a
    /// temporary view shadows `main.events` for unqualified names, so the query builders' SQL reads
    /// the layer unchanged. The contexts join is a `LEFT JOIN` on their primary key, which SQLite
    /// leaves out of any query that reads no context column.
    public static let eventsView = view("events", id: { "uuid_text(a.\($0))" })

    /// The same columns as `event_keys`, the ids as the layer holds them (16 bytes; the text of an
    /// id that is not a canonical UUID): for readers that only compare ids and so need no
    /// `uuid_text` per row (`StoreAnalysis`'s session shares).
    public static let eventKeysView = view("event_keys", id: { "a.\($0)" })

    static func view(_ name: String, id: (String) -> String) -> String {
        """
        CREATE TEMP VIEW IF NOT EXISTS \(name) AS
        SELECT a.event_id AS event_id, n.name AS event_name, a.event_time_ms AS event_time_ms,
               a.received_time_ms AS received_time_ms, \(id("install")) AS install_id,
               \(id("session")) AS session_id, \(id("user")) AS user_id,
               \(contextColumns.map { "c.\($0) AS \($0)" }.joined(separator: ", ")),
               a.properties AS properties
        FROM main.analytic_events a
        JOIN main.event_names n ON n.id = a.name_id
        LEFT JOIN main.event_contexts c ON c.id = a.context_id
        """
    }
}

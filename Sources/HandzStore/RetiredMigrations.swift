/// The SQL of store migrations that later ones undid, kept as shipped: a store is upgraded by
/// running every migration it has not run, in order (``StoreSchema``), so a shipped migration's
/// SQL never changes.
///
/// Migrations 4 and 5 made the analytical layer of issue 15 (a second copy of each event,
/// clustered by name and time, and its per-session rollup). Migration 9 removed both: the column
/// store (HandzColumnStore, issue 33) is the one analytical engine of the embedded store.
enum RetiredMigrations {
    /// Migration 4: the analytical layer (and the log's `(event_name, event_time_ms)` index goes).
    static let analyticalLayer = """
    DROP INDEX IF EXISTS events_by_name_time;
    CREATE TABLE event_names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE event_contexts (
        id INTEGER PRIMARY KEY,
        user_state TEXT NOT NULL, app_version TEXT NOT NULL, build_number TEXT NOT NULL, platform TEXT NOT NULL, os_version TEXT NOT NULL, device_model TEXT NOT NULL, locale TEXT NOT NULL, timezone TEXT NOT NULL, network_state TEXT NOT NULL, key_id TEXT NOT NULL, catalog_version TEXT NOT NULL,
        UNIQUE (user_state, app_version, build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version)
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

    /// Migration 5: the layer's per-session rollup, filled from the layer as it stood.
    static let sessionRollup = """
    CREATE TABLE analytic_session_days (
        install       BLOB    NOT NULL,  -- as analytic_events.install
        session       BLOB    NOT NULL,  -- as analytic_events.session
        day           INTEGER NOT NULL,  -- UTC day: event_time_ms / 86,400,000
        last_time_ms  INTEGER NOT NULL,  -- the group's last event by (event_time_ms, event_id)
        last_event_id BLOB    NOT NULL,
        PRIMARY KEY (install, session, day)
    ) WITHOUT ROWID;
    INSERT INTO analytic_session_days (install, session, day, last_time_ms, last_event_id)
    SELECT install, session, day, event_time_ms, event_id FROM (
      SELECT install, session, event_time_ms / 86400000 AS day, event_time_ms, event_id,
             ROW_NUMBER() OVER (PARTITION BY install, session, event_time_ms / 86400000 ORDER BY event_time_ms DESC, event_id DESC) AS r
      FROM analytic_events) WHERE r = 1;
    """

    /// Migration 9 (issue 33 §5): the layer and its rollup go. The column store, sealed from the
    /// log, answers every query the layer did. Their pages are zeroed (`secure_delete`) and go to
    /// the file's free list, which the log's next rows reuse.
    static let removeAnalyticalLayer = """
    DROP TABLE IF EXISTS analytic_session_days;
    DROP TABLE IF EXISTS analytic_events;
    DROP TABLE IF EXISTS event_contexts;
    DROP TABLE IF EXISTS event_names;
    DROP TABLE IF EXISTS analytic_state;
    """
}

/// `--actor user`: each install resolved to a user_id (CH33 §3.1).
enum ActorResolution {
    /// `um(um_install, um_user)`: per install, the user_id of its earliest event (by
    /// event_time_ms, event_id) that carries one, over all stored events. A guest who signs up
    /// mid-funnel is therefore one actor from their first event on.
    static func userMapCTE(_ dialect: SQLDialect) -> String {
        """
        um AS (
          SELECT um_install, um_user FROM (
            SELECT install_id AS um_install, user_id AS um_user,
                   ROW_NUMBER() OVER (PARTITION BY install_id ORDER BY event_time_ms, event_id) AS um_r
            FROM events WHERE user_id IS NOT NULL
          ) um_first WHERE um_r = 1
        )
        """
    }
}

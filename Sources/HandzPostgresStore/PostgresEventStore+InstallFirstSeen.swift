import HandzStore
import Logging
import PostgresNIO

/// Each install's first-seen time on PostgreSQL (`install_first_seen`, migration 4): the rule and
/// meaning are the embedded store's (`HandzStore.InstallFirstSeen`). The group writer upserts it
/// with the events, purge drops the rows of installs with no app_open received since the cutoff,
/// and a de-identification runs ``firstSeenAfterDeidentification(_:logger:install:past:cutoffMs:)``.
extension PostgresEventStore {
    /// Inside the de-identification's transaction, after `install`'s past moved to `past`: the copy
    /// holding the install's first app_open keeps its cohort, the other is marked first seen
    /// before its stored events (`InstallFirstSeen.afterDeidentification`). The install's row is
    /// locked first, so a concurrent append's upsert of it waits.
    static func firstSeenAfterDeidentification(_ connection: PostgresConnection, logger: Logger, install: String, past: String, cutoffMs: Int64) async throws {
        var installFirst: Int64?
        for try await value in try await connection.query(
            "SELECT first_app_open_ms FROM install_first_seen WHERE install_id = \(install) FOR UPDATE", logger: logger).decode(Int64.self) {
            installFirst = value
        }
        var pastFirst: Int64?
        for try await value in try await connection.query(
            "SELECT MIN(event_time_ms) FROM events WHERE install_id = \(past) AND event_name = 'app_open'", logger: logger).decode(Int64?.self) {
            pastFirst = value
        }
        var installLast: Int64?
        for try await value in try await connection.query(
            "SELECT MAX(received_time_ms) FROM events WHERE install_id = \(install) AND event_name = 'app_open'", logger: logger).decode(Int64?.self) {
            installLast = value
        }
        let before = InstallFirstSeen.beforeStoredEvents
        switch InstallFirstSeen.afterDeidentification(installFirstMs: installFirst, pastFirstAppOpenMs: pastFirst, installLastReceivedMs: installLast, cutoffMs: cutoffMs) {
        case .none:
            break
        case .install(let last):
            _ = try await connection.query(
                "UPDATE install_first_seen SET first_app_open_ms = \(before), last_received_ms = \(last) WHERE install_id = \(install)", logger: logger)
        case .past(let last):
            _ = try await connection.query("""
                INSERT INTO install_first_seen (install_id, first_app_open_ms, last_received_ms) VALUES (\(past), \(before), \(last))
                ON CONFLICT (install_id) DO UPDATE SET
                    first_app_open_ms = LEAST(install_first_seen.first_app_open_ms, excluded.first_app_open_ms),
                    last_received_ms = GREATEST(install_first_seen.last_received_ms, excluded.last_received_ms)
                """, logger: logger)
        }
    }
}

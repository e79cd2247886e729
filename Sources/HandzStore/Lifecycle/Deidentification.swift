import Foundation

/// What de-identifying a deleted user's past means (issue 14 §2; CH34 §2.3 and §8.3 allow
/// keeping only "aggregated, de-identified analytics counters (no user_id, email, username, device
/// identifiers)"; CH33 §9 makes later events anonymous).
///
/// For every install the user was signed in on, the events **received up to the request** lose
/// their user_id, and their install_id and session_id are replaced by fresh random UUIDs: one new
/// id per old install_id and one per old session_id, so funnels and KPIs over the past still count
/// that install and those sessions exactly once, while nothing ties them to the device that keeps
/// sending (its later events keep the real install_id). A session still open at the request is
/// split: its part before keeps the new id, its part after the old one.
///
/// On a device shared by two accounts, the other account's **signed-in** rows keep their ids:
/// moving them with the deleted user's past would let that other user_id join the de-identified
/// past to the device's future. Signed-out rows of the install move with the past (they may be
/// the deleted user's; nothing says whose).
///
/// Decided and kept as they are (not device identifiers):
/// - `device_model`, `os_version`, `locale`, `timezone`, `app_version`, `platform`, `network_state`:
///   closed sets or coarse values shared by very many devices (`iPhone15,2`, `en-GB`,
///   `Europe/London`); none names one device.
/// - `event_id`: a random id per event, never shared with another event; keeping it lets dedupe
///   drop a copy that an offline queue sends again after the deletion (CH27), instead of storing
///   the user's id anew.
/// - Content ids in properties (`flow_id`, `move_id`, …): random ids of the user's own content,
///   which CH34 deletes with the account; they name no device.
/// Changed with the sessions: ``sessionReferenceProperties`` hold a session_id as a value, so they
/// are mapped like `session_id` (else the crash-free KPI would lose its join, and the old id would stay).
public enum Deidentification {
    /// Catalogued properties whose value is a session_id (`crash_reported.crashed_session_id`,
    /// CH33 §5.2). A catalog test checks that every `*session_id` property is listed here.
    public static let sessionReferenceProperties = ["crashed_session_id"]

    /// A fresh random UUID (version 4) in canonical lower case.
    public static func freshID() -> String { UUID().uuidString.lowercased() }

    /// The receive hour (epoch ms / 3,600,000) of a time, for the lake step.
    public static func hour(_ timeMs: Int64) -> Int64 {
        let (quotient, remainder) = timeMs.quotientAndRemainder(dividingBy: 3_600_000)
        return remainder < 0 ? quotient - 1 : quotient
    }
}

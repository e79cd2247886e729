import Foundation
import HandzTestSupport
import Testing

/// What the backup tests of both engines check the same way.
enum RestoreChecks {
    /// The analyst's view of a store: F0, every KPI, and the stored counts.
    static func answers(_ db: String) throws -> [String] {
        try [["funnel", "F0", "--db", db, "--format", "json"], ["kpi", "--all", "--db", db, "--format", "json"],
             ["stats", "--db", db, "--from", "2020-01-01", "--to", "2030-01-01"]].map { arguments in
            let run = try CommandRunner.run(arguments, timeout: 180)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            return run.stdout
        }
    }

    /// Restores `backup` over `db`, whose two users were forgotten after the backup: refused
    /// without `--replace`, then done with it, both deletions copied from the replaced store's
    /// ledger and carried out again. Returns the restore's printed outcome.
    static func restoreOverTwoForgottenUsers(backup: String, db: String) throws -> [String: Any] {
        let refused = try CommandRunner.run(["restore", "--from", backup, "--db", db], timeout: 180)
        #expect(refused.status != 0 && refused.stderr.contains("target_exists"))
        let run = try CommandRunner.run(["restore", "--from", backup, "--db", db, "--replace"], timeout: 180)
        #expect(run.status == 0, "\(run.stderr)")
        let outcome = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(outcome["copied_requests"] as? Int == 2 && outcome["reapplied_requests"] as? Int == 2 && outcome["pending_requests"] as? Int == 0)
        #expect((outcome["events_deidentified"] as? Int ?? 0) > 0)
        return outcome
    }

    /// Restores `backup` to the new path `restored` (nothing replaced, nothing re-applied) and
    /// expects it to answer as the stopped `live` store does.
    static func restoreToNewPath(backup: String, restored: String, answeringAs live: String) throws {
        let restore = try CommandRunner.run(["restore", "--from", backup, "--db", restored], timeout: 180)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.contains("\"reapplied_requests\":0") && restore.stdout.contains("\"replaced\":null"))
        let liveAnswers = try answers(live)
        #expect(try answers(restored) == liveAnswers)
        #expect(liveAnswers[0].contains("\"steps\""), "the funnel answered: \(liveAnswers[0].prefix(200))")
    }
}

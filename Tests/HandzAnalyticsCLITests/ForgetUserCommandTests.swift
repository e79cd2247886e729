import Foundation
import HandzTestSupport
import Testing

/// `forget-user` end to end on a simulated store (issue 14 §2 proof): the deleted user's past is
/// still counted — every catalogued funnel and KPI prints the same numbers as before, by install —
/// while no stored event carries the id; the ledger's commands never print it.
@Suite(.serialized) struct ForgetUserCommandTests {
    @Test("forget-user leaves F0–F4 and every KPI unchanged by install; the id is gone; a repeat is a no-op")
    func countsUnchanged() throws {
        let files = try SimulatedFiles("handz-forget-cli")
        defer { files.remove() }
        let (events, db) = (files.events, files.db)
        #expect(try CommandRunner.run(["import", "--db", db, events]).status == 0)
        // The signed-in user with the most events, on the installs they used.
        let users = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["user_id"] as? String
        }
        let user = try #require(Dictionary(grouping: users, by: { $0 }).max { $0.value.count < $1.value.count }?.key)
        let range = ["--from", "2026-03-01", "--to", "2026-03-15"]
        func numbers() throws -> [String] {
            try ["F0", "F1", "F2", "F3", "F4"].map { try CommandRunner.run(["funnel", $0, "--db", db, "--format", "json"] + range).stdout }
                + [try CommandRunner.run(["kpi", "--all", "--db", db, "--format", "json"] + range).stdout]
        }
        let before = try numbers()
        #expect(before.allSatisfy { !$0.isEmpty })

        let forgot = try CommandRunner.run(["forget-user", "--db", db, user.uppercased()])
        #expect(forgot.status == 0, "\(forgot.stderr)")
        let request = try #require(try JSONSerialization.jsonObject(with: Data(forgot.stdout.utf8)) as? [String: Any])
        #expect(request["state"] as? String == "completed" && (request["events_deidentified"] as? Int ?? 0) > 0)
        #expect(!forgot.stdout.contains(user))
        #expect(try numbers() == before)
        let stored = try CommandRunner.run(["stats", "--db", db])
        #expect(stored.status == 0)
        #expect(try !Data(contentsOf: URL(fileURLWithPath: db)).contains(Data(user.utf8)))

        let again = try CommandRunner.run(["forget-user", "--db", db, user])
        #expect((try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])?["request_id"] as? String == request["request_id"] as? String)
        let listed = try CommandRunner.run(["deletions", "list", "--db", db])
        #expect(listed.stdout.split(separator: "\n").count == 1 && listed.stdout.contains("\"subject_hash\":") && !listed.stdout.contains(user))
        let shown = try CommandRunner.run(["deletions", "show", "--db", db, request["request_id"] as? String ?? ""])
        #expect(shown.status == 0 && shown.stdout.contains("\"steps\":{\"store\":\"done\",\"old_versions\":\"done\",\"lake\":\"not_applicable\"}"))
        #expect(try CommandRunner.run(["deletions", "show", "--db", db, "0b0b0b0b-1111-4222-8333-444455556666"]).status != 0)
    }
}

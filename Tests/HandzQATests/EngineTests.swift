import HandzAnalyticsCore
import HandzQA
import HandzSynthetic
import HandzTestSupport
import Testing

/// How the engine reads a stream: order, retries, sessions, unreadable lines.
@Suite struct EngineTests {
    typealias Q = QAFixture

    static func screen(_ name: String, previous: String? = nil) -> [(String, PropertyValue)] {
        [("screen_name", .string(name))] + (previous.map { [("previous_screen_name", .string($0))] } ?? [])
    }

    @Test("lines are ordered by (event_time_utc, event_id) per session whatever order they arrive in")
    func orderIndependent() {
        let lines = Q.events([
            ("app_open", Q.sessionA, 0, [("start_type", .string("cold")), ("launch_source", .string("direct"))]),
            ("screen_viewed", Q.sessionA, 1, Self.screen("home/demo")),
            ("screen_viewed", Q.sessionA, 5, Self.screen("library/flows", previous: "home/demo")),
            ("screen_viewed", Q.sessionA, 9, Self.screen("flow/detail", previous: "library/flows")),
        ])
        #expect(Q.run(lines).result("screens.previous_screen_chain").passed)
        #expect(Q.run(lines.reversed()).result("screens.previous_screen_chain").passed)
        // The same lines with the chain broken in the middle fail, wherever they arrive.
        var broken = lines
        broken[2] = broken[2].replacing("\"previous_screen_name\":\"home/demo\"", with: "\"previous_screen_name\":\"settings/privacy\"")
        let result = Q.run(broken.reversed()).result("screens.previous_screen_chain")
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.events.map(\.eventID) == [Q.id(lines[1]), Q.id(lines[2])])
    }

    @Test("a retried line (same event_id) is one event: no double app_open")
    func retriesCollapse() {
        let lines = Q.events([
            ("app_open", Q.sessionA, 0, [("start_type", .string("cold")), ("launch_source", .string("direct"))]),
            ("screen_viewed", Q.sessionA, 1, Self.screen("home/demo")),
        ])
        let report = Q.run([lines[0], lines[0], lines[1]])
        #expect(report.duplicates == 1)
        #expect(report.result("cold_start.app_open_once").passed)
    }

    @Test("a session's first screen_viewed may not carry previous_screen_name; each session starts its own chain")
    func chainPerSession() {
        let lines = Q.events([
            ("screen_viewed", Q.sessionA, 0, Self.screen("home/demo")),
            ("screen_viewed", Q.sessionB, 100, Self.screen("inbox/list", previous: "home/demo")),
        ])
        let result = Q.run(lines).result("screens.previous_screen_chain")
        #expect(result.violations.map(\.sessionID) == [Q.sessionB])
        #expect(result.violations.first?.message.contains("first screen_viewed") == true)
    }

    @Test("app_open again after app_background in the same session is a new foreground entry, not a double")
    func warmReentry() {
        let open: [(String, PropertyValue)] = [("start_type", .string("warm")), ("launch_source", .string("direct"))]
        let lines = Q.events([
            ("app_open", Q.sessionA, 0, open), ("screen_viewed", Q.sessionA, 1, Self.screen("home/demo")),
            ("app_background", Q.sessionA, 50, []),
            ("app_open", Q.sessionA, 60, open), ("screen_viewed", Q.sessionA, 61, Self.screen("home/demo", previous: "home/demo")),
        ])
        #expect(Q.run(lines).result("cold_start.app_open_once").passed)
        let doubled = Q.events([("app_open", Q.sessionA, 0, open), ("app_open", Q.sessionA, 0, open), ("screen_viewed", Q.sessionA, 1, Self.screen("home/demo"))])
        #expect(Q.run(doubled).result("cold_start.app_open_once").violations.count == 1)
    }

    @Test("emitted_together accepts partners on either side within 1 s and not further")
    func togetherWindow() {
        let blocked: [(String, PropertyValue)] = [("gate_name", .string("free_saved_flows_cap")), ("current_saved_flow_count", .integer(2))]
        let attempt: [(String, PropertyValue)] = [("flow_draft_id", .string("3f2504e0-4f89-41d3-9a0c-0305e82c3301")), ("current_saved_flow_count", .integer(2))]
        let gate: [(String, PropertyValue)] = [("gate_name", .string("free_saved_flows_cap"))]
        let near = Q.events([("flow_saved_blocked", Q.sessionA, 0, blocked), ("gate_attempt", Q.sessionA, 0, gate), ("flow_save_attempt", Q.sessionA, 1, attempt)])
        #expect(Q.run(near).result("save_flow.blocked_emitted_together").passed)
        let far = Q.events([("flow_save_attempt", Q.sessionA, 0, attempt), ("gate_attempt", Q.sessionA, 2, gate), ("flow_saved_blocked", Q.sessionA, 2, blocked)])
        #expect(Q.run(far).result("save_flow.blocked_emitted_together").violations.first?.message.contains("without flow_save_attempt") == true)
        let otherGate = Q.events([("flow_save_attempt", Q.sessionA, 0, attempt), ("gate_attempt", Q.sessionA, 0, [("gate_name", .string("guest_save_required"))]),
                                  ("flow_saved_blocked", Q.sessionA, 0, blocked)])
        #expect(!Q.run(otherGate).result("save_flow.blocked_emitted_together").passed, "the gate_attempt must be for the same gate")
    }

    @Test("credits: a refresh resets the expected balance; a spend that does not go down fails")
    func creditsDecrement() {
        func spent(_ after: Int64) -> [(String, PropertyValue)] { [("credit_type", .string("monthly_free")), ("credits_remaining_after", .integer(after)), ("source", .string("practice_tab"))] }
        let refresh: [(String, PropertyValue)] = [("credits_added", .integer(3)), ("credits_total_after", .integer(3))]
        let good = Q.events([("practice_credit_spent", Q.sessionA, 0, spent(2)), ("practice_credit_spent", Q.sessionA, 10, spent(1)),
                             ("practice_credit_refreshed", Q.sessionB, 100, refresh), ("practice_credit_spent", Q.sessionB, 110, spent(2))])
        #expect(Q.run(good).result("credits.spent_decrements").passed)
        let bad = Q.events([("practice_credit_refreshed", Q.sessionA, 0, refresh), ("practice_credit_spent", Q.sessionA, 10, spent(1))])
        #expect(Q.run(bad).result("credits.spent_decrements").violations.count == 1)
    }

    @Test("events with analytics_opt_in=false are reported as one run until it is true again")
    func optOutRuns() {
        let lines = Q.events([("screen_viewed", Q.sessionA, 0, Self.screen("home/demo")), ("app_background", Q.sessionA, 5, [("foreground_duration_ms", .integer(5000)), ("open_screens_count", .integer(1))]),
                              ("screen_viewed", Q.sessionB, 100, Self.screen("home/demo")), ("screen_viewed", Q.sessionB, 110, Self.screen("inbox/list", previous: "home/demo"))],
                             optIn: [true, false, false, true])
        let result = Q.run(lines).result("opt_out.silence")
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.events.count == 2)
    }

    @Test("an unreadable line fails the run with its line number and reason, never its text")
    func unreadableLines() {
        let secret = "someone@example.com"
        let lines = Q.events([("screen_viewed", Q.sessionA, 0, Self.screen("home/demo"))]) + ["{\"event_name\":\"\(secret)\"", "not json", "{\"event_name\":\"app_open\"}"]
        let report = Q.run(lines)
        #expect(report.failed)
        #expect(report.inputProblems == [QAInputProblem(line: 2, reason: "not a JSON object"), QAInputProblem(line: 3, reason: "not a JSON object"),
                                         QAInputProblem(line: 4, reason: "missing event_id")])
        for format in QAReport.Format.allCases { #expect(!report.rendered(format).contains(secret)) }
    }
}

/// Same-millisecond events from a device: their ids do not order them.
@Suite struct SimultaneousEventTests {
    typealias Q = QAFixture

    @Test("a gate_result in the same millisecond as its gate_attempt follows it whatever their ids")
    func sameMillisecond() {
        let gate: [(String, PropertyValue)] = [("gate_name", .string("branch_limit"))]
        let result: [(String, PropertyValue)] = [("gate_name", .string("branch_limit")), ("result", .string("blocked"))]
        // The result's id sorts first: the order inside the millisecond is unknown, not wrong.
        let lines = Q.events([("gate_result", Q.sessionA, 0, result), ("gate_attempt", Q.sessionA, 0, gate)])
        #expect(Q.run(lines).result("gates.attempt_then_result").passed)
        // One millisecond earlier is really earlier.
        let earlier = [lines[0], lines[1].replacing("T12:00:00.000Z", with: "T12:00:00.001Z")]
        #expect(!Q.run(earlier).result("gates.attempt_then_result").passed)
    }
}

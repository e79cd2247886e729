import HandzQA
import HandzSynthetic
import HandzTestSupport
import Testing

/// The proof of issue 9: for every rule, a clean simulated stream passes, and a stream with
/// exactly that fault fails with exactly that rule, at the right session and event.
@Suite struct RuleFaultTests {
    @Test("a clean simulated stream passes every rule, and every rule had something to check")
    func cleanStreamPasses() {
        let report = QAFixture.run(QAFixture.clean)
        #expect(report.failedIDs == [])
        #expect(report.inputProblems.isEmpty)
        #expect(report.duplicates > 0, "the simulator's retried lines are collapsed, not counted twice")
        for result in report.results { #expect(result.checked > 0, "\(result.rule.id) checked nothing") }
    }

    @Test("every rule that events can break has a fault that breaks it")
    func everyRuleHasAFault() {
        #expect(Set(SimulatedFault.allCases.map(\.rule)) == Set(QAFixture.ruleSet.rules.map(\.id)))
    }

    @Test("a stream with one fault fails with exactly that fault's rule, where the fault was injected", arguments: SimulatedFault.allCases)
    func faultFailsItsRule(_ fault: SimulatedFault) throws {
        let (lines, injected) = QAFixture.simulate(faults: [fault])
        let site = try #require(injected.first { $0.fault == fault }, "the fault found no place")
        let report = QAFixture.run(lines)
        #expect(report.failedIDs == [fault.rule])
        let violations = report.result(fault.rule).violations
        let first = try #require(violations.first)
        if fault == .missingFunnelStep {
            #expect(violations.count == 1)
            #expect(first.message.contains("F4 step 2 (mastery_plan_scheduled)"))
            #expect(first.events.map(\.name) == ["mastery_plan_created"])
            return
        }
        #expect(first.installID == site.installID)
        #expect(first.sessionID == site.sessionID)
        #expect(first.events.map(\.eventID) == site.eventIDs)
        // A guest install that lost guest_mode_entered fails once per guest restriction; every
        // other fault is one violation.
        if fault == .missingGuestModeEntered {
            #expect(violations.allSatisfy { $0.installID == site.installID })
        } else {
            #expect(violations.count == 1)
        }
    }

    @Test("faults are deterministic per seed")
    func deterministic() {
        let first = QAFixture.simulate(faults: [.doubleAppOpen, .wrongPreviousScreen], installs: 40, days: 10, seed: 3)
        let second = QAFixture.simulate(faults: [.doubleAppOpen, .wrongPreviousScreen], installs: 40, days: 10, seed: 3)
        #expect(first.lines == second.lines && first.injected == second.injected)
    }

    @Test("several faults at once fail their rules together")
    func severalFaults() {
        let faults: Set<SimulatedFault> = [.doubleAppOpen, .missingGateResult, .eventsAfterOptOut]
        let report = QAFixture.run(QAFixture.simulate(faults: faults).lines)
        #expect(Set(report.failedIDs) == Set(faults.map(\.rule)))
    }
}

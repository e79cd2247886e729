@testable import HandzServer
import Testing

/// The background seal runs on a cadence (issue 34, "sealing keeps up"): the wait before the next
/// seal is what is left of the interval, so a seal's own duration does not lengthen the wait of
/// the events that arrive while it runs.
@Suite struct ColumnSealCadenceTests {
    @Test func theNextSealStartsAnIntervalAfterThePreviousOneStarted() {
        #expect(ColumnSealingService.pause(interval: .milliseconds(500), sealTook: .milliseconds(120)) == .milliseconds(380))
        #expect(ColumnSealingService.pause(interval: .seconds(10), sealTook: .zero) == .seconds(10))
    }

    @Test func aSealLongerThanTheIntervalIsFollowedAtOnce() {
        #expect(ColumnSealingService.pause(interval: .milliseconds(500), sealTook: .milliseconds(500)) == .zero)
        #expect(ColumnSealingService.pause(interval: .milliseconds(500), sealTook: .seconds(3)) == .zero)
    }
}

@testable import HandzColumnStore
import Testing

/// The distinct counts behind every "actors" and "sessions" figure of the event queries and
/// KPIs: a wrong count here is a wrong number on a dashboard.
@Suite struct DistinctCountTests {
    @Test("a member set counts each member once, as a bitset (few members) and as a set (more than 2^20)", arguments: [100, 3_000_000])
    func memberSetCountsDistinct(members: Int) {
        var set = MemberSet(members: members)
        for member in [0, 5, 5, 63, 64, 0, Int32(members - 1), Int32(members - 1)] { set.insert(member) }
        #expect(set.count == 5)
    }

    @Test("a trend line's distinct members per period: the same counts as bits (within the budget) and as sorted words (past it)", arguments: [PeriodMembers.bitBudget, 64])
    func periodMembersCountDistinct(bitBudget: Int) {
        var members = PeriodMembers(periods: 3, members: 130, bitBudget: bitBudget)
        let inserts: [(Int, Int32)] = [(0, 0), (0, 0), (0, 129), (2, 64), (2, 63), (2, 64), (0, 64), (2, 0)]
        for (period, member) in inserts { members.insert(period: period, member: member) }
        #expect(members.periodCounts() == [3, 0, 3])
    }

    @Test("rows' keys are numbered densely in key order; an absent session (key 0) is -1 and no member; keys past the bitmap's limit are numbered too")
    func numberedKeys() {
        let (sessions, numbers) = NumberedKeys.numbering([40, 0, 7, 40, 900], absentIsNone: true)
        #expect(sessions.keys == [7, 40, 900])
        #expect(numbers == [1, -1, 0, 1, 2])
        // A text key (the string tag set): past the bitmap's limit without a code table sized to it
        // (a code just past the limit would make DenseNumbers fill 1 GiB: 49 s of a debug test run).
        let text = TextKeys.stringTag | 3
        let (actors, actorNumbers) = NumberedKeys.numbering([text, 5, text], absentIsNone: false)
        #expect(actors.count == 2)
        #expect(actorNumbers[0] == actorNumbers[2] && actorNumbers[0] != actorNumbers[1])
    }
}

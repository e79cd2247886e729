import HandzAnalyticsCore
import HandzTestSupport
import Testing

/// crash_reported names the crashed session in crashed_session_id (catalog 1.3.0, CH33 §6.11),
/// optional so that older app builds' reports are still accepted (CH33 §8.1: ids are UUIDs).
@Suite struct CrashReportedTests {
    @Test("crash_reported is accepted with crashed_session_id and without it (older builds)")
    func acceptedWithAndWithout() {
        var named = EventBuilder("crash_reported")
        named.setProperty("crashed_session_id", "3f2c8a4e-91b7-4d2a-8c5e-6a1f0b9d7e21")
        #expect(verdict(named).isAccepted)
        var older = EventBuilder("crash_reported")
        older.setProperty("crashed_session_id", nil)
        #expect(older.properties["crashed_session_id"] == nil)
        #expect(verdict(older).isAccepted)
    }

    @Test("crashed_session_id must be a random UUID", arguments: ["not-a-session", "0190a5e2-6c1d-1b3e-9f00-4c2a1b3d5e6f", "0190a5e2-6c1d-7b3e-cf00-4c2a1b3d5e6f"])
    func rejectsNonUUID(value: String) {
        var event = EventBuilder("crash_reported")
        event.setProperty("crashed_session_id", value)
        #expect(findings(verdict(event)) == ["invalid_uuid /properties/crashed_session_id"])
    }

    @Test("crashed_session_id is declared for crash_reported only")
    func onlyOnCrashReported() {
        var event = EventBuilder("error_shown")
        event.setProperty("crashed_session_id", "3f2c8a4e-91b7-4d2a-8c5e-6a1f0b9d7e21")
        #expect(findings(verdict(event)) == ["unknown_property /properties/crashed_session_id"])
    }
}

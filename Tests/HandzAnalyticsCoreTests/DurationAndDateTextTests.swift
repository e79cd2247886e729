import HandzAnalyticsCore
import Testing

/// The duration and date texts the catalog, the command line and the served dashboards share
/// (`DurationText`, `TimestampFormat.milliseconds`).
@Suite struct DurationAndDateTextTests {
    @Test("durations: exact seconds per unit, written back in the largest unit that divides them")
    func durations() {
        #expect(DurationText.seconds("30s") == 30 && DurationText.seconds("15m") == 900 && DurationText.seconds("24h") == 86_400)
        #expect(DurationText.seconds("7d") == 604_800 && DurationText.seconds("2w") == 1_209_600)
        for bad in ["", "7", "d", "7y", "-1d", "9223372036854775807w"] { #expect(DurationText.seconds(bad) == nil, "\(bad)") }
        for seconds: Int64 in [604_800, 172_800, 5_400, 3_601, 45] {
            #expect(DurationText.seconds(DurationText.text(seconds: seconds)) == seconds)
        }
        #expect(DurationText.text(seconds: 172_800) == "2d" && DurationText.text(seconds: 5_400) == "90m" && DurationText.text(seconds: 3_601) == "3601s")
    }

    @Test("dates and times: a UTC date is its midnight; invalid dates and other forms are nil")
    func dates() {
        #expect(TimestampFormat.milliseconds("2026-03-01") == 1_772_323_200_000)
        #expect(TimestampFormat.milliseconds("2026-03-01T06:30:00.250Z") == Int64(1_772_346_600_250), "06:30:00.250 is 23,400,250 ms after midnight")
        for bad in ["", "2026-02-30", "2026-13-01", "26-03-01", "2026-03-01T25:00:00Z", "1999-12-31"] {
            #expect(TimestampFormat.milliseconds(bad) == nil, "\(bad)")
        }
    }
}

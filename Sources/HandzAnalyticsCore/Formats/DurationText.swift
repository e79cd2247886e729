/// Durations as the catalog, the command line and the served dashboards write them: `30s`, `15m`,
/// `24h`, `7d`, `2w`. Exact seconds, never calendar arithmetic (a funnel window of 7d is
/// 604,800 s, CH33 §5.1).
public enum DurationText {
    /// `30s`, `15m`, `24h`, `7d`, `2w` → seconds; nil when not a duration (or out of range).
    public static func seconds(_ text: String) -> Int64? {
        guard let unit = text.last, let amount = Int64(text.dropLast()), amount >= 0 else { return nil }
        let multipliers: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let multiplier = multipliers[unit] else { return nil }
        let (seconds, overflow) = amount.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : seconds
    }

    /// Seconds in the largest unit that divides them: `7d`, `48h`, `90m`, or `3600s` as a last
    /// resort (what ``seconds(_:)`` reads back).
    public static func text(seconds: Int64) -> String {
        for (unit, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60)] where seconds != 0 && seconds % size == 0 { return "\(seconds / size)\(unit)" }
        return "\(seconds)s"
    }
}

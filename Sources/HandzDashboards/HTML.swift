import Foundation
import HandzAnalyticsCore

/// HTML text helpers. Everything that goes into a page passes through ``HTML/escape(_:)``:
/// titles and notes from `dashboards/`, catalog values in tables, labels in SVG.
public enum HTML {
    /// Escapes markup characters (and characters XML cannot carry) so text stays text in element
    /// content and in quoted attributes: `MarkupText/escaped(_:)`.
    public static func escape(_ text: String) -> String { MarkupText.escaped(text) }

    /// A slug safe for ids and file names: `[a-z0-9_-]`, anything else as `-`.
    public static func slug(_ text: String) -> String {
        String(text.lowercased().map { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == "-" ? $0 : "-" })
    }
}

/// Number and date formatting for tables and axes (UTC, fixed formats, no locale).
public enum Format {
    /// `12,345`.
    public static func integer(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    /// `12.3%` of a ratio; `–` for nil.
    public static func percent(_ ratio: Double?) -> String {
        guard let ratio, ratio.isFinite else { return "–" }
        return String(format: "%.1f%%", ratio * 100)
    }

    /// A number on an axis: integers grouped, fractions with up to two decimals.
    public static func axis(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return integer(Int64(value)) }
        var text = String(format: "%.2f", value)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// A duration in human units (issue 16 §4): `42.3 s` under a minute, then `19 min 15 s`,
    /// `3 h 5 min`, `2 d 4 h` (whole seconds, rounded); `–` for nil. Tables give the exact
    /// seconds beside it (``seconds(milliseconds:)``).
    public static func duration(milliseconds: Int64?) -> String {
        guard let milliseconds else { return "–" }
        if milliseconds < 0 { return "−" + duration(milliseconds: -milliseconds) }
        if milliseconds < 60_000 { return seconds(milliseconds: milliseconds) + " s" }
        let seconds = (milliseconds + 500) / 1000
        let (days, hours, minutes) = (seconds / 86_400, seconds % 86_400 / 3_600, seconds % 3_600 / 60)
        if days > 0 { return hours > 0 ? "\(days) d \(hours) h" : "\(days) d" }
        if hours > 0 { return minutes > 0 ? "\(hours) h \(minutes) min" : "\(hours) h" }
        return seconds % 60 > 0 ? "\(minutes) min \(seconds % 60) s" : "\(minutes) min"
    }

    /// A change between two periods: `+12.5%` of a count (relative to the previous figure's size,
    /// so the sign is the direction even for a negative figure; `–` when the previous figure is
    /// zero), `−3.1 pp` of a ratio (percentage points); `–` when either figure is missing.
    public static func change(_ current: Double?, _ previous: Double?, ratio: Bool) -> String {
        guard let current, let previous, current.isFinite, previous.isFinite else { return "–" }
        let sign: (Double) -> String = { $0 > 0 ? "+" : $0 < 0 ? "−" : "±" }
        if ratio {
            let points = (current - previous) * 100
            return sign(points) + String(format: "%.1f pp", abs(points))
        }
        guard previous != 0 else { return "–" }
        let relative = (current - previous) / abs(previous) * 100
        return sign(relative) + String(format: "%.1f%%", abs(relative))
    }

    /// Seconds with one decimal (`142.3`); `–` for nil.
    public static func seconds(milliseconds: Int64?) -> String {
        guard let milliseconds else { return "–" }
        return String(format: "%.1f", Double(milliseconds) / 1000)
    }

    /// `2026-03-01` for epoch milliseconds (UTC, proleptic Gregorian).
    public static func date(_ milliseconds: Int64) -> String {
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let (year, month, day) = TimestampFormat.civilFromDays(Int(days))
        return String(format: "%04d-%02d-%02d", year, month, day)
    }

    /// `2026-03-01 06:30` UTC.
    public static func time(_ milliseconds: Int64) -> String {
        let minutes = ((milliseconds % 86_400_000) + 86_400_000) % 86_400_000 / 60_000
        return date(milliseconds) + String(format: " %02d:%02d UTC", minutes / 60, minutes % 60)
    }
}

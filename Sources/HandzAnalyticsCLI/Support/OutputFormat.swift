import ArgumentParser
import HandzAnalyticsCore

/// `--format table|json|csv`.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, csv
}

/// Integer milliseconds as exact decimal seconds (`1500` → `1.5`), so medians print without
/// floating-point noise.
func decimalSeconds(_ milliseconds: Int64) -> String {
    let sign = milliseconds < 0 ? "-" : ""
    let magnitude = milliseconds.magnitude
    let fraction = magnitude % 1000
    guard fraction != 0 else { return sign + String(magnitude / 1000) }
    var digits = String(fraction)
    digits = String(repeating: "0", count: 3 - digits.count) + digits
    while digits.hasSuffix("0") { digits.removeLast() }
    return "\(sign)\(magnitude / 1000).\(digits)"
}

/// Epoch milliseconds as ISO-8601 UTC text.
func isoTime(_ milliseconds: Int64) -> String {
    let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
    return TimestampFormat.format(seconds: seconds, nanoseconds: Int32((milliseconds - seconds * 1000) * 1_000_000))
}

/// A ratio for tables: `66.7%`, or `–` when undefined.
func percent(_ value: Double?) -> String {
    guard let value else { return "–" }
    return String(Int((value * 1000).rounded())).withDecimalPoint + "%"
}

extension String {
    /// `667` → `66.7`.
    fileprivate var withDecimalPoint: String {
        let padded = count < 2 ? String(repeating: "0", count: 2 - count) + self : self
        return padded.dropLast() + "." + padded.suffix(1)
    }
}

import Foundation

/// How long stored data is kept (CH33-P3 lists 13, 24 or 36 months; issue 14 §4: `serve` applies
/// 13 months unless told otherwise). Written `13mo` (calendar months, UTC), `400d` (days) or `off`.
///
/// The cutoff is the instant that many calendar months (or days) before now, in UTC: what was
/// received **before** it goes, what was received at it or later stays.
public enum RetentionPolicy: Sendable, Equatable, CustomStringConvertible {
    case months(Int)
    case days(Int)
    case off

    public static let `default` = RetentionPolicy.months(13)

    public init?(_ text: String) {
        if text == "off" {
            self = .off
        } else if text.hasSuffix("mo"), let months = Int(text.dropLast(2)), (1...1_200).contains(months) {
            self = .months(months)
        } else if text.hasSuffix("d"), let days = Int(text.dropLast()), (1...36_500).contains(days) {
            self = .days(days)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .months(let months): "\(months)mo"
        case .days(let days): "\(days)d"
        case .off: "off"
        }
    }

    /// Epoch ms before which data goes; nil when retention is off.
    public func cutoffMs(nowMs: Int64) -> Int64? {
        let now = Date(timeIntervalSince1970: Double(nowMs) / 1000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        switch self {
        case .off:
            return nil
        case .days(let days):
            return nowMs - Int64(days) * 86_400_000
        case .months(let months):
            guard let date = calendar.date(byAdding: .month, value: -months, to: now) else { return nil }
            return Int64((date.timeIntervalSince1970 * 1000).rounded())
        }
    }
}

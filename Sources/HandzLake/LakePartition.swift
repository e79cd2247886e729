import Foundation
import HandzAnalyticsCore

/// One partition of the event lake: the events received in one UTC hour, under
/// `dt=YYYY-MM-DD/hour=HH/` (Hive-style, so Spark, ClickHouse and DuckDB read it as it is).
///
/// Partitions follow **receive** time (`received_time_ms`), not the device's event time: an hour
/// that has passed receives nothing more (offline devices send late, CH33 §9, but the endpoint
/// stamps them with the time it received them), so an exported partition is final and a re-run
/// rewrites it only when the store changed under it (forget-user, purge).
public struct LakePartition: Sendable, Hashable, Comparable {
    public static let hourMs: Int64 = 3_600_000
    /// The data file in every partition.
    public static let dataFile = "part-00000.ndjson.gz"
    /// The manifest next to it. The leading underscore makes Spark and Hadoop skip it.
    public static let manifestFile = "_manifest.json"

    /// The first millisecond of the hour (UTC).
    public let startMs: Int64

    public init(containing timeMs: Int64) {
        startMs = Self.floorHour(timeMs)
    }

    public var endMs: Int64 { startMs + Self.hourMs }

    /// `dt=2026-03-01/hour=07`.
    public var path: String {
        let (year, month, day, hour) = Self.civil(startMs)
        return String(format: "dt=%04d-%02d-%02d/hour=%02d", year, month, day, hour)
    }

    public static func < (lhs: LakePartition, rhs: LakePartition) -> Bool { lhs.startMs < rhs.startMs }

    public static func floorHour(_ timeMs: Int64) -> Int64 {
        let (quotient, remainder) = timeMs.quotientAndRemainder(dividingBy: hourMs)
        return (remainder < 0 ? quotient - 1 : quotient) * hourMs
    }

    /// UTC civil date and hour of an epoch millisecond.
    static func civil(_ timeMs: Int64) -> (Int, Int, Int, Int) {
        let hours = floorHour(timeMs) / hourMs
        let days = hours >= 0 ? hours / 24 : (hours - 23) / 24
        let date = TimestampFormat.civilFromDays(Int(days))
        return (date.year, date.month, date.day, Int(hours - days * 24))
    }
}

/// The integer rows a KPI query returns (see ``KPIShape``).
public enum KPIRows: Sendable, Equatable {
    case ratio(numerator: Int64, denominator: Int64)
    case median(milliseconds: Int64?, actors: Int64)
    case distribution([KPIBucket])
}

/// One bucket of a distribution: flows whose value is `value` (nil: the property was absent).
public struct KPIBucket: Sendable, Equatable {
    public var value: Int64?
    public var count: Int64

    public init(value: Int64?, count: Int64) {
        self.value = value
        self.count = count
    }
}

/// A KPI's answer: the value with what it is made of. Every figure derives from the integers
/// the SQL returned, so every engine's integers give the same report.
public struct KPIReport: Sendable, Equatable {
    public var query: KPIQuery
    public var rows: KPIRows
    /// Measures that leave someone out (``KPISQLBuilder/reportsLeftOut(_:)``), counted in neither
    /// numerator nor denominator: cohort members whose window ends after the data ends, or, for
    /// `sessions_without_report` (crash_free_sessions), unknown sessions — their install's last,
    /// with no crash reported, since a crash is reported on the next launch (CH33 §6.11). Nil for
    /// the other measures.
    public var leftOut: Int64?

    public init(query: KPIQuery, rows: KPIRows, leftOut: Int64? = nil) {
        self.query = query
        self.rows = rows
        self.leftOut = leftOut
    }

    /// Ratio measures: numerator / denominator / divisor. Distributions: the mean value.
    /// Medians: seconds. Nil when the denominator (or the population) is empty.
    public var value: Double? {
        switch rows {
        case .ratio(let numerator, let denominator):
            return denominator > 0 ? Double(numerator) / Double(denominator) / Double(query.kpi.divisor) : nil
        case .median(let milliseconds, _):
            return milliseconds.map { Double($0) / 1000 }
        case .distribution:
            guard let denominator, denominator > 0, let numerator else { return nil }
            return Double(numerator) / Double(denominator)
        }
    }

    /// Ratio measures: the numerator. Distributions: the sum of values over flows.
    public var numerator: Int64? {
        switch rows {
        case .ratio(let numerator, _): numerator
        case .median: nil
        case .distribution(let buckets): buckets.reduce(0) { $0 + ($1.value ?? 0) * $1.count }
        }
    }

    /// Ratio measures: the denominator. Medians: how many values. Distributions: flows with a value.
    public var denominator: Int64? {
        switch rows {
        case .ratio(_, let denominator): denominator
        case .median(_, let actors): actors
        case .distribution(let buckets): buckets.filter { $0.value != nil }.reduce(0) { $0 + $1.count }
        }
    }
}

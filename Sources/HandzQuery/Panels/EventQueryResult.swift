import HandzAnalyticsCore

/// The answer to an ``EventQuery``, assembled from the integer rows its statements return and
/// sorted here (not in SQL), so every engine's rows give the same result.
public enum EventQueryResult: Sendable, Equatable {
    case daily([DailyCount])
    case ratio(days: [DailyRatio], total: DailyRatio)
    case values([ValueCount])
    case histogram(buckets: [HistogramBucket], quantiles: [Quantile])
    case sessions(daily: [DailyRatio], rolling: [DailyRatio])
    case conversion(numerator: Int64, denominator: Int64)
}

/// `day` is the exact 24 h period `day` × 86,400 s after `from`.
public struct DailyCount: Sendable, Equatable {
    public var day: Int64
    public var series: String?
    public var events: Int64
    public var actors: Int64
    public var sessions: Int64

    public init(day: Int64, series: String?, events: Int64, actors: Int64, sessions: Int64) {
        self.day = day
        self.series = series
        self.events = events
        self.actors = actors
        self.sessions = sessions
    }

    public func value(_ count: EventQuery.Count) -> Int64 {
        switch count {
        case .events: events
        case .actors: actors
        case .sessions: sessions
        }
    }
}

public struct DailyRatio: Sendable, Equatable {
    public var day: Int64
    public var numerator: Int64
    public var denominator: Int64
    /// `session_share` with a session key: unknown sessions, in neither numerator nor
    /// denominator (the KPI's `left_out`); 0 otherwise.
    public var leftOut: Int64

    public init(day: Int64, numerator: Int64, denominator: Int64, leftOut: Int64 = 0) {
        self.day = day
        self.numerator = numerator
        self.denominator = denominator
        self.leftOut = leftOut
    }

    /// numerator / denominator, nil when the denominator is 0.
    public var value: Double? { denominator > 0 ? Double(numerator) / Double(denominator) : nil }
}

/// One combination of grouped values (nil: the property was absent).
public struct ValueCount: Sendable, Equatable {
    public var values: [String?]
    public var events: Int64
    public var actors: Int64

    public init(values: [String?], events: Int64, actors: Int64) {
        self.values = values
        self.events = events
        self.actors = actors
    }
}

public struct HistogramBucket: Sendable, Equatable {
    /// The bucket's lower bound (a multiple of the width); it holds [lower, lower + width).
    public var lower: Int64
    public var count: Int64

    public init(lower: Int64, count: Int64) {
        self.lower = lower
        self.count = count
    }
}

public struct Quantile: Sendable, Equatable {
    /// Percent.
    public var percent: Int64
    /// The lower quantile: the value at position ⌈percent·n/100⌉; nil without values.
    public var value: Int64?

    public init(percent: Int64, value: Int64?) {
        self.percent = percent
        self.value = value
    }

    /// The same definition over values in memory (for tests and checks).
    public static func lower(_ values: [Int64], percent: Int64) -> Int64? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let n = Int64(sorted.count)
        let position = (percent * n + 99) / 100
        return sorted[Int(max(position, 1)) - 1]
    }
}

/// One row of a statement's result, as the reader got it: integers and texts by column.
public struct ResultRow: Sendable {
    public var integers: [Int64?]
    public var texts: [String?]

    public init(integers: [Int64?], texts: [String?]) {
        self.integers = integers
        self.texts = texts
    }
}

extension EventQueryResult {
    /// Builds the result from each statement's rows (see ``EventStatement/Part`` for columns).
    public init(query: EventQuery, rows: [EventStatement.Part: [ResultRow]]) {
        func ratios(_ part: EventStatement.Part) -> [DailyRatio] {
            (rows[part] ?? []).map { DailyRatio(day: $0.integers[0] ?? 0, numerator: $0.integers[1] ?? 0, denominator: $0.integers[2] ?? 0) }
                .sorted { $0.day < $1.day }
        }
        switch query.kind {
        case .dailyCounts:
            let counts = (rows[.daily] ?? []).map {
                DailyCount(day: $0.integers[0] ?? 0, series: $0.texts[1], events: $0.integers[2] ?? 0, actors: $0.integers[3] ?? 0, sessions: $0.integers[4] ?? 0)
            }
            self = .daily(counts.sorted { ($0.day, $0.series ?? "\u{10FFFF}") < ($1.day, $1.series ?? "\u{10FFFF}") })
        case .dailyRatio:
            let all = ratios(.ratio)
            self = .ratio(days: all.filter { $0.day >= 0 }, total: all.first { $0.day < 0 } ?? DailyRatio(day: -1, numerator: 0, denominator: 0))
        case .topValues:
            let width = query.properties.count
            let values = (rows[.values] ?? []).map {
                ValueCount(values: Array($0.texts.prefix(width)), events: $0.integers[width] ?? 0, actors: $0.integers[width + 1] ?? 0)
            }
            self = .values(values.sorted { lhs, rhs in
                if lhs.events != rhs.events { return lhs.events > rhs.events }
                return lhs.values.map { $0 ?? "\u{10FFFF}" }.lexicographicallyPrecedes(rhs.values.map { $0 ?? "\u{10FFFF}" })
            })
        case .histogram:
            let buckets = (rows[.buckets] ?? []).map { HistogramBucket(lower: $0.integers[0] ?? 0, count: $0.integers[1] ?? 0) }.sorted { $0.lower < $1.lower }
            let quantiles = (rows[.quantiles] ?? []).map { Quantile(percent: $0.integers[0] ?? 0, value: $0.integers[1]) }.sorted { $0.percent < $1.percent }
            self = .histogram(buckets: buckets, quantiles: quantiles)
        case .sessionShare:
            func window(_ days: Int64) -> [DailyRatio] {
                (rows[.sessions] ?? []).filter { $0.integers[0] == days }
                    .map { DailyRatio(day: $0.integers[1] ?? 0, numerator: $0.integers[2] ?? 0, denominator: $0.integers[3] ?? 0, leftOut: $0.integers[4] ?? 0) }
                    .sorted { $0.day < $1.day }
            }
            self = .sessions(daily: window(1), rolling: window(query.rollingDays))
        case .followedBy:
            let row = rows[.conversion]?.first
            self = .conversion(numerator: row?.integers[0] ?? 0, denominator: row?.integers[1] ?? 0)
        }
    }
}

/// A retention matrix (``RetentionQuery``): per cohort, its actors and, for each period after
/// install time, how many returned and how many were eligible (their period ended within the
/// data); and the same summed over every cohort, the curve, whose periods 1, 7 and 30 of a day
/// matrix are the KPIs `retention_d1`, `_d7` and `_d30` over the range. Both engines give
/// ``Row``s and the report is assembled from them in one place.
public struct RetentionReport: Sendable, Equatable {
    public struct Cohort: Sendable, Equatable {
        /// The cohort's first millisecond (the range's start for the overall row).
        public var start: Int64
        public var actors: Int64
        /// Per period 0 … n−1.
        public var returned: [Int64]
        public var eligible: [Int64]

        public init(start: Int64, actors: Int64, returned: [Int64], eligible: [Int64]) {
            self.start = start
            self.actors = actors
            self.returned = returned
            self.eligible = eligible
        }

        /// Returned ÷ eligible in period `n`; nil when nobody was eligible.
        public func rate(_ n: Int) -> Double? {
            eligible[n] > 0 ? Double(returned[n]) / Double(eligible[n]) : nil
        }

        /// The cohort actors whose period `n` did not end within the data (the KPIs' `left_out`).
        public func leftOut(_ n: Int) -> Int64 { actors - eligible[n] }
    }

    /// One row of either engine. `kind` 0: `count` cohort actors whose last eligible period is
    /// `period` (−1: none ended yet); `kind` 1: `count` actors of the cohort returned in `period`.
    public struct Row: Sendable, Equatable {
        public var kind: Int
        public var cohort: Int
        public var period: Int
        public var count: Int64

        public init(kind: Int, cohort: Int, period: Int, count: Int64) {
            self.kind = kind
            self.cohort = cohort
            self.period = period
            self.count = count
        }
    }

    public var query: RetentionQuery
    public var cohorts: [Cohort]
    public var overall: Cohort

    public init(query: RetentionQuery, cohorts: [Cohort], overall: Cohort) {
        self.query = query
        self.cohorts = cohorts
        self.overall = overall
    }

    public static func assemble(_ query: RetentionQuery, rows: [Row]) -> RetentionReport {
        let periods = query.interval.periods
        var cohorts = query.cohortStarts.map { Cohort(start: $0, actors: 0, returned: Array(repeating: 0, count: periods), eligible: Array(repeating: 0, count: periods)) }
        for row in rows where cohorts.indices.contains(row.cohort) {
            if row.kind == 0 {
                cohorts[row.cohort].actors += row.count
                // Eligible for every period up to its last.
                let last = min(row.period, periods - 1)
                if last >= 0 { for n in 0...last { cohorts[row.cohort].eligible[n] += row.count } }
            } else if (0..<periods).contains(row.period) {
                cohorts[row.cohort].returned[row.period] += row.count
            }
        }
        var overall = Cohort(start: query.fromMs, actors: 0, returned: Array(repeating: 0, count: periods), eligible: Array(repeating: 0, count: periods))
        for cohort in cohorts {
            overall.actors += cohort.actors
            for n in 0..<periods {
                overall.returned[n] += cohort.returned[n]
                overall.eligible[n] += cohort.eligible[n]
            }
        }
        return RetentionReport(query: query, cohorts: cohorts, overall: overall)
    }
}

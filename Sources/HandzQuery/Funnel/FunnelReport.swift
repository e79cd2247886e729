import HandzAnalyticsCore

/// One row of a funnel query's result (see ``FunnelSQLBuilder``).
public struct FunnelRow: Sendable, Equatable {
    public var breakdown: String?
    public var step: Int
    public var actors: Int64
    public var medianMs: Int64?

    public init(breakdown: String?, step: Int, actors: Int64, medianMs: Int64?) {
        self.breakdown = breakdown
        self.step = step
        self.actors = actors
        self.medianMs = medianMs
    }
}

/// One step of a funnel result.
public struct FunnelStepResult: Sendable, Equatable {
    public var index: Int
    public var events: [String]
    /// Actors whose reported chain reaches this step.
    public var actors: Int64
    /// actors / step-1 actors; nil when no actor entered.
    public var conversionFromStart: Double?
    /// actors / previous step's actors; nil for step 1 or when the previous step has none.
    public var conversionFromPrevious: Double?
    /// Lower median of the milliseconds from the previous step (``Median``); nil for step 1.
    public var medianMsFromPrevious: Int64?
}

/// The step list of one breakdown value (nil: the explicit null bucket).
public struct FunnelBucket: Sendable, Equatable {
    public var value: String?
    public var steps: [FunnelStepResult]
}

/// A funnel's answer: every step (steps no actor reached are listed with 0), and per breakdown
/// value when one was asked for. Conversions are ratios of the integer counts, computed here so
/// every engine's integers give the same figures.
public struct FunnelReport: Sendable, Equatable {
    public var query: FunnelQuery
    public var steps: [FunnelStepResult]
    public var breakdown: [FunnelBucket]?

    /// Assembles the report from the rows of the overall query and, with a breakdown, of the
    /// breakdown query. Buckets are ordered by value, the null bucket last.
    public init(query: FunnelQuery, overall: [FunnelRow], breakdownRows: [FunnelRow]? = nil) {
        self.query = query
        steps = Self.steps(query.funnel, overall)
        breakdown = breakdownRows.map { rows in
            let values = Set(rows.map(\.breakdown))
            let ordered = values.compactMap { $0 }.sorted().map(Optional.some) + (values.contains(nil) ? [nil] : [])
            return ordered.map { value in FunnelBucket(value: value, steps: Self.steps(query.funnel, rows.filter { $0.breakdown == value })) }
        }
    }

    static func steps(_ funnel: FunnelDefinition, _ rows: [FunnelRow]) -> [FunnelStepResult] {
        var results: [FunnelStepResult] = []
        for (offset, step) in funnel.steps.enumerated() {
            let row = rows.first { $0.step == offset + 1 }
            let actors = row?.actors ?? 0
            let start = results.first?.actors ?? actors
            let previous = results.last?.actors
            results.append(FunnelStepResult(
                index: offset + 1, events: step.events, actors: actors,
                conversionFromStart: start > 0 ? Double(actors) / Double(start) : nil,
                conversionFromPrevious: previous.flatMap { $0 > 0 ? Double(actors) / Double($0) : nil },
                medianMsFromPrevious: offset == 0 ? nil : row?.medianMs
            ))
        }
        return results
    }
}

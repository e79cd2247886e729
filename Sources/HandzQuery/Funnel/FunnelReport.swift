import HandzAnalyticsCore

/// One row of a funnel query's result (see ``FunnelSQLBuilder``). Step n + 1 is the success.
public struct FunnelRow: Sendable, Equatable {
    public var breakdown: String?
    public var step: Int
    public var actors: Int64
    public var medianMs: Int64?
    /// Funnels across people: the links reaching the step (0 before the first actor's last step
    /// and in single-actor funnels).
    public var links: Int64
    /// More than 0: the row belongs to the "other" bucket, which folds this many values
    /// (``FunnelQuery/breakdownLimit``); `breakdown` is then nil. 0 for the SQL's rows.
    public var otherValues: Int

    public init(breakdown: String?, step: Int, actors: Int64, medianMs: Int64?, links: Int64 = 0, otherValues: Int = 0) {
        self.breakdown = breakdown
        self.step = step
        self.actors = actors
        self.medianMs = medianMs
        self.links = links
        self.otherValues = otherValues
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
    /// For the success row: from the step the success follows.
    public var medianMsFromPrevious: Int64?
    /// Funnels across people, from the first actor's last step on: the links reaching the step
    /// (receivers are counted in `actors`, one per link and receiving actor); nil otherwise.
    public var links: Int64?
}

/// The step list of one breakdown value (nil: the explicit null bucket), or of "other".
public struct FunnelBucket: Sendable, Equatable {
    public var value: String?
    public var steps: [FunnelStepResult]
    /// The success row (``FunnelReport/success``) of this bucket.
    public var success: FunnelStepResult?
    /// More than 0: this is the "other" bucket, the actors of that many values outside the
    /// query's ``FunnelQuery/breakdownLimit`` (`value` is nil); 0 for a value's own bucket.
    public var otherValues: Int = 0

    public var isOther: Bool { otherValues > 0 }
}

/// A funnel's answer: every step (steps no actor reached are listed with 0), and per breakdown
/// value when one was asked for. Conversions are ratios of the integer counts, computed here so
/// every engine's integers give the same figures.
public struct FunnelReport: Sendable, Equatable {
    public var query: FunnelQuery
    public var steps: [FunnelStepResult]
    /// The success condition's row (index n + 1, `events` the success events): actors whose
    /// reported chain is followed by a success; conversions from the start and from the step the
    /// success follows. Nil for a funnel without a success condition.
    public var success: FunnelStepResult?
    public var breakdown: [FunnelBucket]?

    /// Assembles the report from the rows of the overall query and, with a breakdown, of the
    /// breakdown query. Buckets are ordered by value, the null bucket after them and "other"
    /// last. The rows are grouped once (linear in the rows, whatever the number of values).
    public init(query: FunnelQuery, overall: [FunnelRow], breakdownRows: [FunnelRow]? = nil) {
        self.query = query
        (steps, success) = Self.steps(query.funnel, overall)
        breakdown = breakdownRows.map { rows in
            var byValue: [String: [FunnelRow]] = [:]
            var null: [FunnelRow] = [], other: [FunnelRow] = []
            for row in rows {
                if row.otherValues > 0 { other.append(row) } else if let value = row.breakdown { byValue[value, default: []].append(row) } else { null.append(row) }
            }
            var buckets = byValue.keys.sorted().map { value in
                let (steps, success) = Self.steps(query.funnel, byValue[value]!)
                return FunnelBucket(value: value, steps: steps, success: success)
            }
            if !null.isEmpty {
                let (steps, success) = Self.steps(query.funnel, null)
                buckets.append(FunnelBucket(value: nil, steps: steps, success: success))
            }
            if let folded = other.first?.otherValues {
                let (steps, success) = Self.steps(query.funnel, other)
                buckets.append(FunnelBucket(value: nil, steps: steps, success: success, otherValues: folded))
            }
            return buckets
        }
    }

    /// Conversions are ratios of actors on the same side: in a funnel across people the first
    /// receiver step converts from the previous step's links (the share of links someone
    /// reached), and receiver steps convert "from start" from the first receiver step.
    static func steps(_ funnel: FunnelDefinition, _ rows: [FunnelRow]) -> ([FunnelStepResult], FunnelStepResult?) {
        let handoff = funnel.handoffIndex.map { $0 + 1 }
        var results: [FunnelStepResult] = []
        func result(index: Int, events: [String], row: FunnelRow?, startIndex: Int, previousIndex: Int?, linkConversion: Bool) -> FunnelStepResult {
            let actors = row?.actors ?? 0
            let start = startIndex <= results.count ? results[startIndex - 1].actors : actors
            let conversionFromPrevious: Double?
            if linkConversion, let previousIndex, let before = results[previousIndex - 1].links {
                conversionFromPrevious = before > 0 ? Double(row?.links ?? 0) / Double(before) : nil
            } else {
                conversionFromPrevious = previousIndex.flatMap { results[$0 - 1].actors > 0 ? Double(actors) / Double(results[$0 - 1].actors) : nil }
            }
            let showsLinks = handoff.map { index >= $0 - 1 } ?? false
            return FunnelStepResult(
                index: index, events: events, actors: actors,
                conversionFromStart: start > 0 ? Double(actors) / Double(start) : nil,
                conversionFromPrevious: conversionFromPrevious,
                medianMsFromPrevious: index == 1 ? nil : row?.medianMs,
                links: showsLinks ? row?.links ?? 0 : nil
            )
        }
        for (offset, step) in funnel.steps.enumerated() {
            let index = offset + 1
            let row = rows.first { $0.step == index }
            let startIndex = handoff.map { index >= $0 ? $0 : 1 } ?? 1
            results.append(result(index: index, events: step.events, row: row, startIndex: startIndex,
                                  previousIndex: index == 1 ? nil : index - 1, linkConversion: index == handoff))
        }
        guard let condition = funnel.successCondition else { return (results, nil) }
        let index = funnel.steps.count + 1
        let startIndex = handoff ?? 1
        let success = result(index: index, events: condition.events, row: rows.first { $0.step == index }, startIndex: startIndex,
                             previousIndex: condition.afterStep, linkConversion: false)
        return (results, success)
    }
}

/// Conversion over time (``FunnelQuery/byEntryDay``): the funnel of one UTC day's entries.
public struct FunnelEntryDay: Sendable, Equatable {
    /// The day's start, milliseconds since 1970-01-01T00:00:00Z.
    public var dayMs: Int64
    public var steps: [FunnelStepResult]
    public var success: FunnelStepResult?

    /// Actors entering that day (step 1).
    public var entered: Int64 { steps.first?.actors ?? 0 }
    /// Those whose chain from that day's entries reached the last step.
    public var completed: Int64 { steps.last?.actors ?? 0 }
}

extension FunnelReport {
    /// By entry day, every UTC day of [from, to) that overlaps the range — days nobody entered
    /// on listed with 0 — in order; empty unless the query asked for conversion over time.
    public var entryDays: [FunnelEntryDay] {
        guard query.byEntryDay else { return [] }
        let day = FunnelEvaluator.dayMs
        var byDay: [Int64: FunnelBucket] = [:]
        for bucket in breakdown ?? [] {
            if let value = bucket.value, let number = Int64(value) { byDay[number] = bucket }
        }
        let first = query.fromMs / day, last = (query.toMs - 1) / day
        guard first <= last else { return [] }
        return (first...last).map { number in
            if let bucket = byDay[number] { return FunnelEntryDay(dayMs: number * day, steps: bucket.steps, success: bucket.success) }
            let (steps, success) = Self.steps(query.funnel, [])
            return FunnelEntryDay(dayMs: number * day, steps: steps, success: success)
        }
    }
}

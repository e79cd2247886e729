import HandzAnalyticsCore

/// A trend (issue 35 §1): how often one or more event series happened in each period of a range —
/// "how many installs opened the builder each day last month, by plan state?". Pure data; the SQL
/// is ``TrendSQLBuilder``'s, the column engine's walk `HandzColumnStore.ColumnTrend`, and both
/// give a ``TrendReport``.
///
/// **Series.** Each series is one or more enabled catalog events, optionally filtered on
/// closed-set properties (`EventMatch`), written as one step of the funnel explorer's text form
/// (`app_open[launch_source=push]`, `flow_saved_success|flow_draft_created`): a union of events is one series.
/// Series are counted apart, so an event in two series counts in both. At most ``maxSeries``.
///
/// **Periods.** Events are placed by their device time (`event_time_ms`, as every funnel and KPI,
/// CH33 §5), in `[fromMs, toMs)`:
/// - `day` and `week`: exact periods of 86,400 s and 7 × 86,400 s counted from `fromMs`, as the
///   dashboards' days and the KPIs' weeks (no time zone moves a figure);
/// - `month`: calendar months in UTC; the first period starts at `fromMs` and each later one on the
///   first day of a month, so a range that starts mid-month has a short first period.
///
/// **Measures.** `events` counts events; `installs` distinct `install_id`s; `users` distinct
/// actors with each install resolved to its user (CH33 §3.1, the funnel's `--actor user`: the
/// `user_id` of the install's earliest event that carries one, over every stored event; an install
/// that never signed in is its own actor); `sessions` distinct `session_id`s. A distinct count over
/// the whole range (the report's totals) is not the sum of the periods'.
///
/// **Breakdown.** One closed-set property (enum or boolean) every event of every series carries,
/// or a release dimension (`app_version`, `build_number`, `catalog_version`): one row per value
/// and series, events without the property under "(not set)". The CLI and the SQL list every
/// value; the pages keep the ``BreakdownLimit`` values with the largest totals and fold the rest
/// into one "(other)" row, counted again over its events (distinct counts cannot be summed).
public struct TrendQuery: Sendable, Equatable {
    public enum Measure: String, Sendable, CaseIterable {
        case events, installs, users, sessions
    }

    public enum Interval: String, Sendable, CaseIterable {
        case day, week, month
    }

    public var series: [EventMatch]
    public var measure: Measure
    public var interval: Interval
    public var fromMs: Int64
    public var toMs: Int64
    public var breakdown: String?
    /// When set, the breakdown values kept (the largest totals first); the rest are "(other)".
    public var breakdownLimit: Int?

    public static let maxSeries = 8
    /// The most periods a trend draws (ten years of days; `SiteControls.maxDays`).
    public static let maxPeriods = 3_660

    public init(series: [EventMatch], measure: Measure = .events, interval: Interval = .day, fromMs: Int64, toMs: Int64,
                breakdown: String? = nil, breakdownLimit: Int? = nil) {
        self.series = series
        self.measure = measure
        self.interval = interval
        self.fromMs = fromMs
        self.toMs = toMs
        self.breakdown = breakdown
        self.breakdownLimit = breakdownLimit
    }

    /// The series of `text`, the funnel explorer's text form with one step per series
    /// (`AdHocFunnel`): series separated by `,`, a series' events by `|`, filters in brackets.
    /// Refusals say which series and why, never the text.
    public static func series(_ text: String, catalog: Catalog) throws(QueryError) -> [EventMatch] {
        let parts = try AdHocFunnel.split(text)
        guard (1...maxSeries).contains(parts.count) else { throw .invalidFunnel("a trend has 1 to \(maxSeries) series") }
        var series: [EventMatch] = []
        for (index, part) in parts.enumerated() {
            do {
                let step = try AdHocFunnel.step(part, number: index + 1, catalog: catalog)
                series.append(EventMatch(events: step.events, filters: step.filters))
            } catch .invalidFunnel(let reason) {
                // AdHocFunnel's "step N: why", said of the series.
                let why = reason.firstIndex(of: ":").map { reason[$0...] } ?? ": \(reason)"
                throw .invalidFunnel("series \(index + 1)\(why)")
            }
        }
        return series
    }

    /// The text form of `series` (what ``series(_:catalog:)`` reads back).
    public static func text(_ series: [EventMatch]) -> String {
        AdHocFunnel.text(series.map { FunnelStep(events: $0.events, filters: $0.filters) })
    }

    /// Every event name the series read.
    public var events: [String] {
        var names: [String] = []
        for match in series { for name in match.events where !names.contains(name) { names.append(name) } }
        return names
    }

    /// The start of each period, in order: the first is `fromMs`; each ends where the next
    /// starts, the last at `toMs`.
    public var periodStarts: [Int64] {
        switch interval {
        case .day: return Swift.stride(from: fromMs, to: toMs, by: Int(EventQuery.dayMs)).map { $0 }
        case .week: return Swift.stride(from: fromMs, to: toMs, by: Int(7 * EventQuery.dayMs)).map { $0 }
        case .month:
            var starts = [fromMs]
            var month = UTCMonth(containing: fromMs).next
            while month.startMs < toMs {
                starts.append(month.startMs)
                month = month.next
            }
            return starts
        }
    }

    /// The period of time `t` in `[fromMs, toMs)`, by the same rule the SQL writes.
    public func period(of t: Int64, monthStarts: [Int64]) -> Int {
        switch interval {
        case .day: return Int((t - fromMs) / EventQuery.dayMs)
        case .week: return Int((t - fromMs) / (7 * EventQuery.dayMs))
        case .month:
            // The last start at or before t (the first is fromMs ≤ t).
            var low = 0, high = monthStarts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if monthStarts[middle] <= t { low = middle } else { high = middle - 1 }
            }
            return low
        }
    }

    /// The checks the builders and the column engine make alike: a range, 1 to ``maxSeries``
    /// series of enabled events, at most ``maxPeriods`` periods, and a breakdown every series'
    /// events carry.
    public func validate(_ catalog: Catalog) throws(QueryError) {
        guard fromMs < toMs else { throw .invalidRange("from must be before to") }
        guard (1...Self.maxSeries).contains(series.count) else { throw .invalidFunnel("a trend has 1 to \(Self.maxSeries) series") }
        for match in series {
            guard !match.events.isEmpty else { throw .invalidFunnel("every series names at least one event") }
            for name in match.events {
                try PropertyAccess.checkIdentifier(name)
                guard catalog.event(named: name)?.isEnabled == true else { throw .invalidFunnel("every event must be an enabled event of the catalog") }
            }
        }
        let days = (toMs - fromMs + EventQuery.dayMs - 1) / EventQuery.dayMs
        guard days <= Int64(Self.maxPeriods) else { throw .invalidRange("a trend spans at most \(Self.maxPeriods) days") }
        if let breakdown { try checkBreakdown(breakdown, catalog: catalog) }
        if let breakdownLimit, breakdownLimit < 1 { throw .invalidRange("the breakdown limit must be at least 1") }
    }

    func checkBreakdown(_ name: String, catalog: Catalog) throws(QueryError) {
        try PropertyAccess.checkIdentifier(name)
        if EventsTable.versionColumns.contains(name) { return }
        guard let definition = catalog.properties[name], definition.closedValues != nil else {
            throw .invalidBreakdown("\(name) is not a closed set (enum or boolean); only those may be broken down")
        }
        if EventsTable.envelopeColumns.contains(name) { return }
        for match in series {
            for eventName in match.events {
                guard let event = catalog.event(named: eventName), catalog.allowedProperties(of: event).contains(where: { $0.name == name }) else {
                    throw .invalidBreakdown("\(eventName) does not carry \(name)")
                }
            }
        }
    }
}

/// A calendar month in UTC, by its first millisecond (civil-from-days, no calendar library: the
/// same boundaries on every machine).
struct UTCMonth {
    var year: Int64
    var month: Int64

    init(year: Int64, month: Int64) {
        self.year = year
        self.month = month
    }

    init(containing ms: Int64) {
        let days = ms >= 0 ? ms / EventQuery.dayMs : (ms + 1) / EventQuery.dayMs - 1
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let month = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (month <= 2 ? 1 : 0), month: month)
    }

    var next: UTCMonth { month == 12 ? UTCMonth(year: year + 1, month: 1) : UTCMonth(year: year, month: month + 1) }

    /// Days from 1970-01-01 to this month's first day (days_from_civil).
    var startMs: Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return (era * 146_097 + doe - 719_468) * EventQuery.dayMs
    }
}

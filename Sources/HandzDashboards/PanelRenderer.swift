import Foundation
import HandzAnalyticsCore
import HandzQuery

/// One panel as HTML: its charts (inline SVG) and, under each, the numbers in a table
/// (CH33 §7). Pure: ``PanelData`` in, HTML text out.
struct PanelRenderer {
    let data: PanelData
    let fromMs: Int64
    let toMs: Int64
    let id: String
    /// The same panel over the previous period of the same length (the served pages'
    /// comparison, issue 16 §2): deltas beside every figure, faded series in the charts.
    var previous: PanelData? = nil

    var panel: PanelDefinition { data.panel }
    var days: Int { Int((toMs - fromMs + QueryDay.ms - 1) / QueryDay.ms) }

    func html() -> String {
        var out = "<section class=\"panel\" id=\"\(id)\" aria-labelledby=\"\(id)-h\">\n"
        out += "<h2 id=\"\(id)-h\">\(HTML.escape(panel.title))</h2>\n"
        if !panel.bullet.isEmpty {
            out += "<p class=\"bullet\">CH33 §7: “\(HTML.escape(panel.bullet))” · chart: \(panel.chart.rawValue) · from: \(HTML.escape(panel.sources.map(\.label).joined(separator: ", ")))</p>\n"
        }
        if let missing = panel.missing { out += "<p class=\"missing\"><strong>Not in the catalog:</strong> \(HTML.escape(missing))</p>\n" }
        if let note = panel.note { out += "<p class=\"note\">\(HTML.escape(note))</p>\n" }
        for note in data.notes { out += "<p class=\"note versions\">Catalog versions: \(HTML.escape(note))</p>\n" }
        for note in data.sources.compactMap(\.note) { out += "<p class=\"note breakdown\">\(HTML.escape(note))</p>\n" }
        out += body()
        return out + "</section>\n"
    }

    func body() -> String {
        switch panel.chart {
        case .funnel: funnel()
        case .line: line()
        case .rate: rate()
        case .bars: bars()
        case .histogram: histogram()
        case .stat: stat()
        }
    }

    func figure(_ suffix: String, _ svg: String, _ table: Table) -> String {
        "<figure>\n\(svg)\n<figcaption>\(HTML.escape(panel.title)) — \(HTML.escape(table.caption))</figcaption>\n</figure>\n" + table.html(id: "\(id)-\(suffix)-table")
    }

    // MARK: - Funnel

    func funnel() -> String {
        var out = ""
        for (index, source) in data.sources.enumerated() {
            guard case .funnel(let report) = source.result else { continue }
            let before = previousResult(index).flatMap { result -> FunnelReport? in if case .funnel(let report) = result { return report }; return nil }
            let funnel = report.query.funnel
            // The steps, then the success condition as a last row (CH33 §5.1 "Success").
            let rows = Self.rows(report.steps, report.success)
            let previousRows = before.map { Self.rows($0.steps, $0.success) }
            let bars = zip(Self.funnelLabels(funnel, rows), rows).map { (label: $0, actors: $1.actors) }
            let svg = Charts.funnel(id: "\(id)-\(index)", title: "\(funnel.id) \(funnel.title)", steps: bars, unit: panel.unit, previous: previousRows?.map(\.actors))
            out += figure("\(index)", svg, funnelTable(report, rows: rows, previous: previousRows, bucket: nil))
            if let buckets = report.breakdown, !buckets.isEmpty, let breakdown = report.query.breakdown {
                let groups = buckets.map { (name: Self.bucketLabel($0), actors: Self.rows($0.steps, $0.success).map(\.actors)) }
                let grouped = Charts.groupedFunnel(id: "\(id)-\(index)-bd", title: "\(funnel.id) \(funnel.title) by \(breakdown)",
                                                   steps: Self.funnelLabels(funnel, rows), groups: groups, breakdown: breakdown, unit: panel.unit)
                out += "<figure>\n\(grouped)\n<figcaption>\(HTML.escape(panel.title)) — by \(HTML.escape(breakdown)) (numbers in the tables below)</figcaption>\n</figure>\n"
            }
            // One table per value, numbered (values may differ only in characters an id drops);
            // `data-breakdown` names the value. The query kept the top values and folded the rest
            // into "other" (``BreakdownLimit``): at most nine tables, whatever the data holds.
            for (number, bucket) in (report.breakdown ?? []).enumerated() {
                let previousBucket = bucket.isOther ? nil : before?.breakdown?.first { !$0.isOther && $0.value == bucket.value }
                // The previous period kept its own top values: a value it folded into its "other"
                // has no figure of its own there, and the two "other"s hold different values.
                let previousUnknown = bucket.isOther || (previousBucket == nil && before?.breakdown?.contains(where: \.isOther) == true)
                let previousBucketRows = before == nil ? nil : previousBucket.map { Self.rows($0.steps, $0.success) } ?? []
                out += funnelTable(report, rows: Self.rows(bucket.steps, bucket.success), previous: previousBucketRows, previousUnknown: previousUnknown,
                                   bucket: Self.bucketLabel(bucket), otherValues: bucket.otherValues)
                    .html(id: "\(id)-\(index)-bd-\(number + 1)-table")
            }
        }
        return out
    }

    /// A funnel's rows as its table shows them: the steps, then the success row (CH33 §5.1
    /// "Success") when the funnel has one.
    static func rows(_ steps: [FunnelStepResult], _ success: FunnelStepResult?) -> [FunnelStepResult] {
        steps + (success.map { [$0] } ?? [])
    }

    /// How a breakdown bucket is named in its table: its value, `(not set)`, or `(other)`.
    static func bucketLabel(_ bucket: FunnelBucket) -> String {
        bucket.isOther ? otherLabel : bucket.value ?? "(not set)"
    }

    /// The name of the bucket or series that folds the values past ``BreakdownLimit/values``; in
    /// brackets like `(not set)`, so no closed-set value or version can be mistaken for it.
    static let otherLabel = "(other)"

    static func funnelLabels(_ funnel: FunnelDefinition, _ rows: [FunnelStepResult]) -> [String] {
        rows.map { step in
            step.index > funnel.steps.count ? "Success" : funnel.steps[step.index - 1].specName ?? step.events.joined(separator: " / ")
        }
    }

    /// One funnel's table, overall or of one breakdown value; with the previous period's rows,
    /// their actors and the change beside each step's (`–` when `previousUnknown`: the previous
    /// period has no figure for this bucket of its own). `otherValues`: how many values the
    /// "other" bucket folds (0 for a value's own table).
    func funnelTable(_ report: FunnelReport, rows: [FunnelStepResult], previous: [FunnelStepResult]?, previousUnknown: Bool = false, bucket: String?,
                     otherValues: Int = 0) -> Table {
        let funnel = report.query.funnel
        let linked = funnel.handoffIndex != nil
        let actorUnit = report.query.actor == .user ? "users" : panel.unit
        let counted = linked ? "senders, then receivers (one per link and receiving actor)," : actorUnit
        let window = Format.duration(milliseconds: report.query.windowMs)
        let folded = otherValues > 0 ? " (the actors of \(Format.integer(Int64(otherValues))) values past the top \(BreakdownLimit.values) by actors entering)" : ""
        let breakdown = bucket.map { " · \(report.query.breakdown ?? "") = \($0)\(folded)" } ?? ""
        var table = Table(caption: "\(funnel.id)\(breakdown): \(counted) reaching each step within \(window) of step 1; success: \(funnel.success)",
                          columns: ["Step", "Events", actorUnit.capitalized] + (previous == nil ? [] : ["Previous period", "Change"]) + (linked ? ["Links"] : [])
                            + ["From previous", "Drop-off", "From step 1", "Median time from previous", "Median (s)"])
        // The window and actor in attributes: a check can ask another engine the same question.
        table.attributes = [("funnel", funnel.id), ("window-ms", String(report.query.windowMs)), ("actor", report.query.actor.rawValue)] + (bucket.map { [("breakdown", $0)] } ?? []) + (otherValues > 0 ? [("breakdown-values", String(otherValues))] : [])
        table.columnClasses = [nil, nil, "actors"] + (previous == nil ? [] : ["previous", "delta"])
        let labels = Self.funnelLabels(funnel, rows)
        for (offset, step) in rows.enumerated() {
            let isSuccess = step.index > funnel.steps.count
            var row = [isSuccess ? "Success" : String(step.index), labels[offset], Format.integer(step.actors)]
            if previousUnknown {
                row += ["–", "–"]
            } else if let previous {
                let before = previous.first { $0.index == step.index }?.actors ?? 0
                row += [Format.integer(before), Format.change(Double(step.actors), Double(before), ratio: false)]
            }
            row += (linked ? [step.links.map(Format.integer) ?? "–"] : [])
                + [Format.percent(step.conversionFromPrevious), step.conversionFromPrevious.map { Format.percent(1 - $0) } ?? "–",
                   Format.percent(step.conversionFromStart), Format.duration(milliseconds: step.medianMsFromPrevious),
                   Format.seconds(milliseconds: step.medianMsFromPrevious)]
            table.append(row, key: ("step", isSuccess ? "success" : String(step.index)))
        }
        return table
    }

    /// The previous period's result of the `index`-th source, when comparing.
    func previousResult(_ index: Int) -> SourceData.Result? {
        guard let previous, previous.sources.indices.contains(index) else { return nil }
        return previous.sources[index].result
    }

    // MARK: - Daily counts

    func line() -> String {
        let (columns, kept, notes) = dailyColumns(data)
        // The previous period, day for day, matched to the current series by name; a split keeps
        // this period's values, so "other" is the same values in both.
        let before = previous.map { dailyColumns($0, keeping: kept).columns } ?? []
        let previousColumns: [(name: String, values: [Int64])] = previous == nil ? [] : columns.map { column in
            (column.name, before.first { $0.name == column.name }?.values ?? Array(repeating: 0, count: days))
        }
        var table = Table(caption: (["by UTC day from the range start; unit: \(panel.unit)"] + notes).joined(separator: "; "), columns: ["Day"] + columns.map(\.name)
                          + previousColumns.map { "\($0.name), previous period" })
        table.columnClasses = [nil] + columns.map { _ in nil } + previousColumns.map { _ in "previous" }
        var cumulative: [Int64] = []
        if panel.cumulative, let first = columns.first {
            var total: Int64 = 0
            cumulative = first.values.map { total += $0; return total }
            table.columns.append("\(first.name), cumulative")
        }
        for day in 0..<days {
            table.rows.append([Format.date(fromMs + Int64(day) * QueryDay.ms)] + columns.map { Format.integer($0.values[day]) }
                              + previousColumns.map { Format.integer($0.values[day]) } + (cumulative.isEmpty ? [] : [Format.integer(cumulative[day])]))
        }
        var totalsTable: Table?
        if previous != nil {
            let totals = columns.map { $0.values.reduce(0, +) }, previousTotals = previousColumns.map { $0.values.reduce(0, +) }
            var comparison = Table(caption: "whole range against the previous period of the same length", columns: ["Series", "This period", "Previous period", "Change"])
            comparison.columnClasses = [nil, nil, "previous", "delta"]
            for (index, column) in columns.enumerated() {
                comparison.rows.append([column.name, Format.integer(totals[index]), Format.integer(previousTotals[index]),
                                        Format.change(Double(totals[index]), Double(previousTotals[index]), ratio: false)])
            }
            totalsTable = comparison
            table.caption += "; totals in the next table"
        }
        var out = figure("0", Charts.timeSeries(id: "\(id)-0", title: panel.title, fromMs: fromMs, days: days, series: columns.map { ($0.name, $0.values.map { Double($0) }) },
                                                unit: panel.unit, percent: false, previous: previousColumns.map { ($0.name, $0.values.map { Double($0) }) }), table)
        if let totalsTable { out += totalsTable.html(id: "\(id)-totals-table") }
        if !cumulative.isEmpty {
            let svg = Charts.timeSeries(id: "\(id)-1", title: "\(panel.title) (cumulative)", fromMs: fromMs, days: days,
                                        series: [("\(columns[0].name), cumulative", cumulative.map { Double($0) })], unit: "\(panel.unit), cumulative", percent: false)
            out += "<figure>\n\(svg)\n<figcaption>\(HTML.escape(panel.title)) — running total from the range start (numbers in the table above)</figcaption>\n</figure>\n"
        }
        return out
    }

    /// The daily series of a counts panel: one per count, or one per split value — past
    /// ``BreakdownLimit/values``, the values with the largest totals of the panel's count over
    /// the range, then `(other)` (issue 32 §3). `keeping`: the values to keep per source (the
    /// previous period keeps this period's); the answer says which it kept, and what the table
    /// should say about the values it did not draw.
    ///
    /// "Other" is drawn for event counts only: every event has one value, so the other values'
    /// events add up exactly. Installs and sessions do not (one install can send under two values
    /// on a day, an upgrade day), so for them the table says how many values are not drawn.
    func dailyColumns(_ data: PanelData, keeping: [Int: SplitValues]? = nil)
        -> (columns: [(name: String, values: [Int64])], kept: [Int: SplitValues], notes: [String]) {
        var columns: [(name: String, values: [Int64])] = []
        var kept: [Int: SplitValues] = [:]
        var notes: [String] = []
        for (index, source) in data.sources.enumerated() {
            guard case .query(.daily(let counts)) = source.result else { continue }
            let definedSplit: String? = if case .query(let query)? = kind(index) { query.split } else { nil }
            if let split = source.eventQuery?.split ?? definedSplit {
                let count = panel.counts.first ?? .events
                // One pass over the rows, whatever the number of values.
                var perValue: [String: [Int64]] = [:]
                for row in counts where row.day >= 0 && row.day < days {
                    perValue[row.series ?? "(not set)", default: [Int64](repeating: 0, count: days)][Int(row.day)] += row.value(count)
                }
                let shown = keeping?[index]?.values ?? Self.topValues(perValue)
                let rest = perValue.keys.filter { !shown.contains($0) }
                // The previous period draws "other" when this one does, over the values this one
                // did not keep.
                let other = keeping?[index]?.other ?? !rest.isEmpty
                kept[index] = SplitValues(values: shown, other: other)
                for value in shown.sorted() { columns.append(("\(split) = \(value) (\(count.rawValue))", perValue[value] ?? [Int64](repeating: 0, count: days))) }
                guard other else { continue }
                if count == .events {
                    var perDay = [Int64](repeating: 0, count: days)
                    for value in rest { for day in 0..<days { perDay[day] += perValue[value]![day] } }
                    columns.append(("\(split) = \(Self.otherLabel) (\(count.rawValue))", perDay))
                    notes.append("\(split) = \(Self.otherLabel): the events of \(Format.integer(Int64(rest.count))) values past the top \(shown.count) by events")
                } else {
                    notes.append("\(Format.integer(Int64(rest.count))) more values of \(split) are not drawn (an install or session can carry two values on a day, so their \(count.rawValue) cannot be added up)")
                }
            } else {
                guard case .query? = kind(index) else { continue }
                for count in panel.counts {
                    var perDay = [Int64](repeating: 0, count: days)
                    for row in counts where row.day >= 0 && row.day < days { perDay[Int(row.day)] += row.value(count) }
                    columns.append(("\(source.label) \(Self.countName(count))", perDay))
                }
            }
        }
        return (columns, kept, notes)
    }

    /// The values a split source draws, and whether it draws "other" for the rest.
    struct SplitValues {
        var values: Set<String>
        var other: Bool
    }

    /// The split values a daily panel draws: every value when at most one would be left over,
    /// else the ``BreakdownLimit/values`` with the largest totals (ties by value).
    static func topValues(_ perValue: [String: [Int64]]) -> Set<String> {
        guard perValue.count > BreakdownLimit.values + 1 else { return Set(perValue.keys) }
        let totals = perValue.mapValues { $0.reduce(0, +) }
        let ranked = totals.keys.sorted { totals[$0]! != totals[$1]! ? totals[$0]! > totals[$1]! : $0 < $1 }
        return Set(ranked.prefix(BreakdownLimit.values))
    }

    static func countName(_ count: EventQuery.Count) -> String {
        switch count {
        case .events: "events"
        case .actors: "installs"
        case .sessions: "sessions"
        }
    }

    /// The definition of the `index`-th source (sources and their data share the order).
    func kind(_ index: Int) -> PanelSource.Kind? {
        panel.sources.indices.contains(index) ? panel.sources[index].kind : nil
    }

    // MARK: - Rates

    /// A rate series of a panel: its daily ratios and, for ratio queries, the whole range's.
    typealias RateSeries = (name: String, rows: [DailyRatio], total: DailyRatio?, leftOut: Bool)

    func rate() -> String {
        let perSeries = rateSeries(data)
        let before = previous.map { rateSeries($0) }
        var table = Table(caption: "by UTC day from the range start; unit: \(panel.unit)", columns: ["Day"])
        table.columnClasses = [nil]
        for entry in perSeries {
            table.columns += ["\(entry.name): numerator", "denominator", "%"] + (entry.leftOut ? ["left out"] : []) + (before == nil ? [] : ["%, previous period"])
            table.columnClasses += [nil, nil, nil] + (entry.leftOut ? [nil] : []) + (before == nil ? [] : ["previous"])
        }
        func values(_ rows: [DailyRatio]) -> [Double?] {
            var values = [Double?](repeating: nil, count: days)
            for row in rows where row.day >= 0 && row.day < days { values[Int(row.day)] = row.value }
            return values
        }
        let matched = perSeries.map { entry in before?.first { $0.name == entry.name } }
        for day in 0..<days {
            var row = [Format.date(fromMs + Int64(day) * QueryDay.ms)]
            for (index, entry) in perSeries.enumerated() {
                let ratio = entry.rows.first { $0.day == Int64(day) }
                row += [Format.integer(ratio?.numerator ?? 0), Format.integer(ratio?.denominator ?? 0), Format.percent(ratio?.value)]
                if entry.leftOut { row.append(Format.integer(ratio?.leftOut ?? 0)) }
                if before != nil { row.append(Format.percent(matched[index]?.rows.first { $0.day == Int64(day) }?.value)) }
            }
            table.rows.append(row)
        }
        if perSeries.contains(where: { $0.total != nil }) {
            table.rows.append(["Whole range"] + perSeries.enumerated().flatMap { index, entry in
                (entry.total.map { [Format.integer($0.numerator), Format.integer($0.denominator), Format.percent($0.value)] } ?? ["", "", ""])
                    + (entry.leftOut ? [""] : []) + (before == nil ? [] : [Format.percent(matched[index]?.total?.value)])
            })
        }
        var out = figure("0", Charts.timeSeries(id: "\(id)-0", title: panel.title, fromMs: fromMs, days: days, series: perSeries.map { ($0.name, values($0.rows)) },
                                                unit: panel.unit, percent: true, previous: before == nil ? [] : perSeries.indices.map { (perSeries[$0].name, values(matched[$0]?.rows ?? [])) }),
                         table)
        if before != nil {
            var totals = Table(caption: "whole range against the previous period of the same length (a day-weighted ratio: numerators over denominators)",
                               columns: ["Series", "This period", "Previous period", "Change"])
            totals.columnClasses = [nil, nil, "previous", "delta"]
            for (index, entry) in perSeries.enumerated() {
                let now = entry.total?.value ?? Self.pooled(entry.rows), then = matched[index].flatMap { $0.total?.value ?? Self.pooled($0.rows) }
                totals.rows.append([entry.name, Format.percent(now), Format.percent(then), Format.change(now, then, ratio: true)])
            }
            out += totals.html(id: "\(id)-totals-table")
        }
        return out
    }

    /// Numerators over denominators of daily ratios; nil without a denominator.
    static func pooled(_ rows: [DailyRatio]) -> Double? {
        let denominator = rows.reduce(0) { $0 + $1.denominator }
        return denominator > 0 ? Double(rows.reduce(0) { $0 + $1.numerator }) / Double(denominator) : nil
    }

    func rateSeries(_ data: PanelData) -> [RateSeries] {
        // Session shares also show their unknown sessions ("left out": an install's last session,
        // whose crash report could still come), counted in neither numerator nor denominator.
        var perSeries: [RateSeries] = []
        for (index, source) in data.sources.enumerated() {
            switch source.result {
            case .query(.ratio(let rows, let total)):
                perSeries.append((source.label, rows, total, false))
            case .query(.sessions(let daily, let rolling)):
                let window = kind(index).flatMap { kind -> Int64? in if case .query(let query) = kind { return query.rollingDays }; return nil } ?? 7
                perSeries.append(("\(source.label), per day", daily, nil, true))
                perSeries.append(("\(source.label), \(window)-day rolling", rolling, nil, true))
            default: continue
            }
        }
        return perSeries
    }

    // MARK: - Top values

    func bars() -> String {
        var out = ""
        for (index, source) in data.sources.enumerated() {
            guard case .query(.values(let values)) = source.result, case .query(let query)? = kind(index) else { continue }
            let total = values.reduce(0) { $0 + $1.events }
            let shown = Array(values.prefix(panel.limit))
            let rest = values.dropFirst(panel.limit)
            let before: [ValueCount]? = if case .query(.values(let values))? = previousResult(index) { values } else { nil }
            var table = Table(caption: "\(panel.unit) by \(query.properties.joined(separator: " and ")), top \(panel.limit) of \(values.count)",
                              columns: query.properties + ["Events", "Installs", "Share of events"] + (before == nil ? [] : ["Events, previous period", "Change"]))
            table.columnClasses = query.properties.map { _ in nil } + [nil, nil, nil] + (before == nil ? [] : ["previous", "delta"])
            var rows: [(label: String, value: Double, text: String)] = []
            for value in shown {
                let names = value.values.map { $0 ?? "(not set)" }
                let then = before.map { $0.first { $0.values == value.values }?.events ?? 0 }
                table.rows.append(names + [Format.integer(value.events), Format.integer(value.actors), Format.percent(total > 0 ? Double(value.events) / Double(total) : nil)]
                                  + (then.map { [Format.integer($0), Format.change(Double(value.events), Double($0), ratio: false)] } ?? []))
                rows.append((names.joined(separator: " · "), Double(value.events), Format.integer(value.events)))
            }
            if !rest.isEmpty {
                let events = rest.reduce(0) { $0 + $1.events }
                table.rows.append(["other (\(rest.count) combinations)"] + Array(repeating: "", count: query.properties.count - 1)
                                  + [Format.integer(events), "–", Format.percent(total > 0 ? Double(events) / Double(total) : nil)] + (before == nil ? [] : ["", ""]))
                rows.append(("other (\(rest.count))", Double(events), Format.integer(events)))
            }
            out += figure("\(index)", Charts.bars(id: "\(id)-\(index)", title: panel.title, rows: rows, unit: panel.unit, percent: false), table)
        }
        return out
    }

    // MARK: - Histograms

    func histogram() -> String {
        var out = ""
        for (index, source) in data.sources.enumerated() {
            switch source.result {
            case .query(.histogram(let buckets, let quantiles)):
                guard case .query(let query)? = kind(index) else { continue }
                let width = query.bucketWidth
                let name = query.properties.first ?? ""
                let label: (Int64) -> String = { width == 1 ? Format.integer($0) : "\(Format.integer($0))–\(Format.integer($0 + width - 1))" }
                let low = buckets.first?.lower ?? 0, high = (buckets.last?.lower ?? 0) + width
                var filled: [(label: String, count: Int64)] = []
                if !buckets.isEmpty {
                    for lower in stride(from: low, to: high, by: Int(width)) { filled.append((label(lower), buckets.first { $0.lower == lower }?.count ?? 0)) }
                }
                let markers = quantiles.compactMap { q in q.value.map { (label: "p\(q.percent) = \(Format.integer($0))", position: high > low ? Double($0 - low) / Double(high - low) : 0) } }
                // With the comparison: the previous period's count per bucket and value per quantile.
                let before: (buckets: [HistogramBucket], quantiles: [Quantile])? =
                    if case .query(.histogram(let buckets, let quantiles))? = previousResult(index) { (buckets, quantiles) } else { nil }
                var table = Table(caption: "\(panel.unit) per bucket of \(name)", columns: [name, "Count"] + (before == nil ? [] : ["Count, previous period"]))
                table.columnClasses = [nil, nil] + (before == nil ? [] : ["previous"])
                for bucket in buckets {
                    table.rows.append([label(bucket.lower), Format.integer(bucket.count)]
                                      + (before.map { [Format.integer($0.buckets.first { $0.lower == bucket.lower }?.count ?? 0)] } ?? []))
                }
                var quantileTable = Table(caption: "quantiles of \(name) (lower quantile: the value at position ⌈q·n/100⌉)", columns: ["Quantile", name]
                                          + (before == nil ? [] : ["Previous period", "Change"]))
                quantileTable.columnClasses = [nil, nil] + (before == nil ? [] : ["previous", "delta"])
                for q in quantiles {
                    let then = before?.quantiles.first { $0.percent == q.percent }?.value
                    quantileTable.rows.append(["p\(q.percent)", q.value.map(Format.integer) ?? "–"]
                                              + (before == nil ? [] : [then.map(Format.integer) ?? "–", Format.change(q.value.map(Double.init), then.map(Double.init), ratio: false)]))
                }
                out += figure("\(index)", Charts.histogram(id: "\(id)-\(index)", title: panel.title, buckets: filled, markers: markers, valueTitle: name, unit: panel.unit), table)
                if !quantiles.isEmpty { out += quantileTable.html(id: "\(id)-\(index)-quantiles") }
            case .kpi(let report):
                guard case .distribution(let buckets) = report.rows else { continue }
                let name = report.query.kpi.property ?? "value"
                let before: KPIReport? = if case .kpi(let report)? = previousResult(index) { report } else { nil }
                let previousBuckets: [KPIBucket]? = if case .distribution(let buckets)? = before?.rows { buckets } else { before == nil ? nil : [] }
                var table = Table(caption: "\(panel.unit) per \(name) (KPI \(report.query.kpi.id) on each flow's latest save)", columns: [name, "Flows"]
                                  + (previousBuckets == nil ? [] : ["Flows, previous period"]))
                table.columnClasses = [nil, nil] + (previousBuckets == nil ? [] : ["previous"])
                for bucket in buckets {
                    table.rows.append([bucket.value.map(Format.integer) ?? "(not set)", Format.integer(bucket.count)]
                                      + (previousBuckets.map { [Format.integer($0.first { $0.value == bucket.value }?.count ?? 0)] } ?? []))
                }
                table.rows.append(["Mean", report.value.map { String(format: "%.2f", $0) } ?? "–"] + (previousBuckets == nil ? [] : [before?.value.map { String(format: "%.2f", $0) } ?? "–"]))
                let values = buckets.compactMap(\.value)
                let low = values.min() ?? 0, high = (values.max() ?? 0) + 1
                var filled: [(label: String, count: Int64)] = []
                let step = max(1, (high - low + 39) / 40)
                for lower in stride(from: low, to: high, by: Int(step)) {
                    let count = buckets.filter { ($0.value ?? Int64.min) >= lower && ($0.value ?? Int64.min) < lower + step }.reduce(0) { $0 + $1.count }
                    filled.append((step == 1 ? Format.integer(lower) : "\(Format.integer(lower))–\(Format.integer(lower + step - 1))", count))
                }
                let markers = report.value.map { [(label: String(format: "mean = %.2f", $0), position: high > low ? ($0 - Double(low)) / Double(high - low) : 0)] } ?? []
                out += figure("\(index)", Charts.histogram(id: "\(id)-\(index)", title: panel.title, buckets: filled, markers: markers, valueTitle: name, unit: panel.unit), table)
            default: continue
            }
        }
        return out
    }

    // MARK: - Single values

    func stat() -> String {
        // "Left out": cohort members whose window ends after the data ends (they may still convert).
        var table = Table(caption: "values over the whole range", columns: ["Measure", "Value", "Numerator", "Denominator", "Left out"]
                          + (previous == nil ? [] : ["Previous period", "Change"]))
        table.columnClasses = [nil, "value", "numerator", "denominator", "left-out"] + (previous == nil ? [] : ["previous", "delta"])
        var bars: [(label: String, value: Double, text: String)] = []
        var figures: [String] = []
        for (index, source) in data.sources.enumerated() {
            let before = previousResult(index)
            switch source.result {
            case .kpi(let report):
                let key = (name: "kpi", value: report.query.kpi.id)
                let previousReport: KPIReport? = if case .kpi(let report)? = before { report } else { nil }
                if case .median(let milliseconds, let actors) = report.rows {
                    let then: Int64? = if case .median(let value, _)? = previousReport?.rows { value } else { nil }
                    table.append([report.query.kpi.title, "\(Format.duration(milliseconds: milliseconds)) (\(Format.seconds(milliseconds: milliseconds)) s)", "–", Format.integer(actors), "–"]
                                 + (previous == nil ? [] : [Format.duration(milliseconds: then), Format.change(milliseconds.map(Double.init), then.map(Double.init), ratio: false)]), key: key)
                    figures.append(Charts.figure(id: "\(id)-\(index)", title: report.query.kpi.title, value: Format.duration(milliseconds: milliseconds),
                                                 caption: "lower median over \(Format.integer(actors)) \(report.query.actor == .user ? "users" : "installs")"))
                } else {
                    let value = report.value
                    table.append([report.query.kpi.title, Format.percent(value), report.numerator.map(Format.integer) ?? "–", report.denominator.map(Format.integer) ?? "–",
                                  report.leftOut.map(Format.integer) ?? "–"]
                                 + (previous == nil ? [] : [Format.percent(previousReport?.value), Format.change(value, previousReport?.value, ratio: true)]), key: key)
                    bars.append((report.query.kpi.title, value ?? 0, Format.percent(value)))
                }
            case .query(.conversion(let numerator, let denominator)):
                let value = denominator > 0 ? Double(numerator) / Double(denominator) : nil
                let then: Double? = if case .query(.conversion(let n, let d))? = before, d > 0 { Double(n) / Double(d) } else { nil }
                table.append([source.label, Format.percent(value), Format.integer(numerator), Format.integer(denominator), "–"]
                             + (previous == nil ? [] : [Format.percent(then), Format.change(value, then, ratio: true)]), key: ("source", source.label))
                bars.append((source.label, value ?? 0, Format.percent(value)))
            default: continue
            }
        }
        var out = ""
        for svg in figures { out += "<figure>\n\(svg)\n<figcaption>\(HTML.escape(panel.title))</figcaption>\n</figure>\n" }
        if !bars.isEmpty {
            out += "<figure>\n\(Charts.bars(id: "\(id)-bars", title: panel.title, rows: bars, unit: panel.unit, percent: true))\n<figcaption>\(HTML.escape(panel.title)) — \(HTML.escape(panel.unit))</figcaption>\n</figure>\n"
        }
        return out + table.html(id: "\(id)-table")
    }
}

enum QueryDay {
    static let ms = EventQuery.dayMs
}

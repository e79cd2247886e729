import Foundation
import HandzQuery

/// One panel as HTML: its charts (inline SVG) and, under each, the numbers in a table
/// (CH33 §7). Pure: ``PanelData`` in, HTML text out.
struct PanelRenderer {
    let data: PanelData
    let fromMs: Int64
    let toMs: Int64
    let id: String

    var panel: PanelDefinition { data.panel }
    var days: Int { Int((toMs - fromMs + QueryDay.ms - 1) / QueryDay.ms) }

    func html() -> String {
        var out = "<section class=\"panel\" id=\"\(id)\" aria-labelledby=\"\(id)-h\">\n"
        out += "<h2 id=\"\(id)-h\">\(HTML.escape(panel.title))</h2>\n"
        out += "<p class=\"bullet\">CH33 §7: “\(HTML.escape(panel.bullet))” · chart: \(panel.chart.rawValue) · from: \(HTML.escape(panel.sources.map(\.label).joined(separator: ", ")))</p>\n"
        if let missing = panel.missing { out += "<p class=\"missing\"><strong>Not in the catalog:</strong> \(HTML.escape(missing))</p>\n" }
        if let note = panel.note { out += "<p class=\"note\">\(HTML.escape(note))</p>\n" }
        for note in data.notes { out += "<p class=\"note versions\">Catalog versions: \(HTML.escape(note))</p>\n" }
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
            let funnel = report.query.funnel
            // The steps, then the success condition as a last row (CH33 §5.1 "Success").
            let rows = report.steps + (report.success.map { [$0] } ?? [])
            let labels = rows.map { step in
                step.index > funnel.steps.count ? "Success" : funnel.steps[step.index - 1].specName ?? step.events.joined(separator: " / ")
            }
            let bars = zip(labels, rows).map { (label: $0, actors: $1.actors) }
            let svg = Charts.funnel(id: "\(id)-\(index)", title: "\(funnel.id) \(funnel.title)", steps: bars, unit: panel.unit)
            let linked = funnel.handoffIndex != nil
            let counted = linked ? "senders, then receivers (one per link and receiving actor)," : "\(panel.unit)"
            var table = Table(caption: "\(funnel.id): \(counted) reaching each step within \(report.query.windowMs / 3_600_000) h of step 1; success: \(funnel.success)",
                              columns: ["Step", "Events", panel.unit.capitalized] + (linked ? ["Links"] : [])
                                + ["From previous", "Drop-off", "From step 1", "Median time from previous (s)"])
            for (offset, step) in rows.enumerated() {
                let isSuccess = step.index > funnel.steps.count
                table.rows.append([isSuccess ? "Success" : String(step.index), labels[offset], Format.integer(step.actors)]
                    + (linked ? [step.links.map(Format.integer) ?? "–"] : [])
                    + [Format.percent(step.conversionFromPrevious),
                       step.conversionFromPrevious.map { Format.percent(1 - $0) } ?? "–", Format.percent(step.conversionFromStart),
                       Format.seconds(milliseconds: step.medianMsFromPrevious)])
            }
            out += figure("\(index)", svg, table)
        }
        return out
    }

    // MARK: - Daily counts

    func line() -> String {
        var series: [(name: String, values: [Double?])] = []
        var columns: [(name: String, values: [Int64])] = []
        for (index, source) in data.sources.enumerated() {
            guard case .query(.daily(let counts)) = source.result, case .query(let query)? = kind(index) else { continue }
            if query.split != nil {
                let count = panel.counts.first ?? .events
                let values = Array(Set(counts.map { $0.series ?? "(not set)" })).sorted()
                for value in values {
                    var perDay = [Int64](repeating: 0, count: days)
                    for row in counts where (row.series ?? "(not set)") == value && row.day >= 0 && row.day < days { perDay[Int(row.day)] += row.value(count) }
                    columns.append(("\(query.split!) = \(value) (\(count.rawValue))", perDay))
                }
            } else {
                for count in panel.counts {
                    var perDay = [Int64](repeating: 0, count: days)
                    for row in counts where row.day >= 0 && row.day < days { perDay[Int(row.day)] += row.value(count) }
                    columns.append(("\(source.label) \(Self.countName(count))", perDay))
                }
            }
        }
        series = columns.map { ($0.name, $0.values.map { Double($0) }) }
        var table = Table(caption: "by UTC day from the range start; unit: \(panel.unit)", columns: ["Day"] + columns.map(\.name))
        var cumulative: [Int64] = []
        if panel.cumulative, let first = columns.first {
            var total: Int64 = 0
            cumulative = first.values.map { total += $0; return total }
            table.columns.append("\(first.name), cumulative")
        }
        for day in 0..<days {
            table.rows.append([Format.date(fromMs + Int64(day) * QueryDay.ms)] + columns.map { Format.integer($0.values[day]) } + (cumulative.isEmpty ? [] : [Format.integer(cumulative[day])]))
        }
        var out = figure("0", Charts.timeSeries(id: "\(id)-0", title: panel.title, fromMs: fromMs, days: days, series: series, unit: panel.unit, percent: false), table)
        if !cumulative.isEmpty {
            let svg = Charts.timeSeries(id: "\(id)-1", title: "\(panel.title) (cumulative)", fromMs: fromMs, days: days,
                                        series: [("\(columns[0].name), cumulative", cumulative.map { Double($0) })], unit: "\(panel.unit), cumulative", percent: false)
            out += "<figure>\n\(svg)\n<figcaption>\(HTML.escape(panel.title)) — running total from the range start (numbers in the table above)</figcaption>\n</figure>\n"
        }
        return out
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

    func rate() -> String {
        var series: [(name: String, values: [Double?])] = []
        // Session shares also show their unknown sessions ("left out": an install's last session,
        // whose crash report could still come), counted in neither numerator nor denominator.
        var perSeries: [(name: String, rows: [DailyRatio], total: DailyRatio?, leftOut: Bool)] = []
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
        var table = Table(caption: "by UTC day from the range start; unit: \(panel.unit)", columns: ["Day"])
        for entry in perSeries {
            table.columns += ["\(entry.name): numerator", "denominator", "%"] + (entry.leftOut ? ["left out"] : [])
            var values = [Double?](repeating: nil, count: days)
            for row in entry.rows where row.day >= 0 && row.day < days { values[Int(row.day)] = row.value }
            series.append((entry.name, values))
        }
        for day in 0..<days {
            var row = [Format.date(fromMs + Int64(day) * QueryDay.ms)]
            for entry in perSeries {
                let ratio = entry.rows.first { $0.day == Int64(day) }
                row += [Format.integer(ratio?.numerator ?? 0), Format.integer(ratio?.denominator ?? 0), Format.percent(ratio?.value)]
                if entry.leftOut { row.append(Format.integer(ratio?.leftOut ?? 0)) }
            }
            table.rows.append(row)
        }
        if perSeries.contains(where: { $0.total != nil }) {
            table.rows.append(["Whole range"] + perSeries.flatMap { entry in
                (entry.total.map { [Format.integer($0.numerator), Format.integer($0.denominator), Format.percent($0.value)] } ?? ["", "", ""])
                    + (entry.leftOut ? [""] : [])
            })
        }
        return figure("0", Charts.timeSeries(id: "\(id)-0", title: panel.title, fromMs: fromMs, days: days, series: series, unit: panel.unit, percent: true), table)
    }

    // MARK: - Top values

    func bars() -> String {
        var out = ""
        for (index, source) in data.sources.enumerated() {
            guard case .query(.values(let values)) = source.result, case .query(let query)? = kind(index) else { continue }
            let total = values.reduce(0) { $0 + $1.events }
            let shown = Array(values.prefix(panel.limit))
            let rest = values.dropFirst(panel.limit)
            var table = Table(caption: "\(panel.unit) by \(query.properties.joined(separator: " and ")), top \(panel.limit) of \(values.count)",
                              columns: query.properties + ["Events", "Installs", "Share of events"])
            var rows: [(label: String, value: Double, text: String)] = []
            for value in shown {
                let names = value.values.map { $0 ?? "(not set)" }
                table.rows.append(names + [Format.integer(value.events), Format.integer(value.actors), Format.percent(total > 0 ? Double(value.events) / Double(total) : nil)])
                rows.append((names.joined(separator: " · "), Double(value.events), Format.integer(value.events)))
            }
            if !rest.isEmpty {
                let events = rest.reduce(0) { $0 + $1.events }
                table.rows.append(["other (\(rest.count) combinations)"] + Array(repeating: "", count: query.properties.count - 1)
                                  + [Format.integer(events), "–", Format.percent(total > 0 ? Double(events) / Double(total) : nil)])
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
                var table = Table(caption: "\(panel.unit) per bucket of \(name)", columns: [name, "Count"])
                for bucket in buckets { table.rows.append([label(bucket.lower), Format.integer(bucket.count)]) }
                var quantileTable = Table(caption: "quantiles of \(name) (lower quantile: the value at position ⌈q·n/100⌉)", columns: ["Quantile", name])
                for q in quantiles { quantileTable.rows.append(["p\(q.percent)", q.value.map(Format.integer) ?? "–"]) }
                out += figure("\(index)", Charts.histogram(id: "\(id)-\(index)", title: panel.title, buckets: filled, markers: markers, valueTitle: name, unit: panel.unit), table)
                if !quantiles.isEmpty { out += quantileTable.html(id: "\(id)-\(index)-quantiles") }
            case .kpi(let report):
                guard case .distribution(let buckets) = report.rows else { continue }
                let name = report.query.kpi.property ?? "value"
                var table = Table(caption: "\(panel.unit) per \(name) (KPI \(report.query.kpi.id) on each flow's latest save)", columns: [name, "Flows"])
                for bucket in buckets { table.rows.append([bucket.value.map(Format.integer) ?? "(not set)", Format.integer(bucket.count)]) }
                table.rows.append(["Mean", report.value.map { String(format: "%.2f", $0) } ?? "–"])
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
        var table = Table(caption: "values over the whole range", columns: ["Measure", "Value", "Numerator", "Denominator", "Left out"])
        var bars: [(label: String, value: Double, text: String)] = []
        var figures: [String] = []
        for (index, source) in data.sources.enumerated() {
            switch source.result {
            case .kpi(let report):
                if case .median(let milliseconds, let actors) = report.rows {
                    table.rows.append([report.query.kpi.title, Format.seconds(milliseconds: milliseconds) + " s", "–", Format.integer(actors), "–"])
                    figures.append(Charts.figure(id: "\(id)-\(index)", title: report.query.kpi.title, value: Format.seconds(milliseconds: milliseconds) + " s",
                                                 caption: "lower median over \(Format.integer(actors)) installs"))
                } else {
                    let value = report.value
                    table.rows.append([report.query.kpi.title, Format.percent(value), report.numerator.map(Format.integer) ?? "–", report.denominator.map(Format.integer) ?? "–",
                                       report.leftOut.map(Format.integer) ?? "–"])
                    bars.append((report.query.kpi.title, value ?? 0, Format.percent(value)))
                }
            case .query(.conversion(let numerator, let denominator)):
                let value = denominator > 0 ? Double(numerator) / Double(denominator) : nil
                table.rows.append([source.label, Format.percent(value), Format.integer(numerator), Format.integer(denominator), "–"])
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

/// An accessible data table: caption, column headers with scope, first column as row header.
struct Table {
    var caption: String
    var columns: [String]
    var rows: [[String]] = []

    func html(id: String) -> String {
        var out = "<table id=\"\(id)\" class=\"data\">\n<caption>\(HTML.escape(caption))</caption>\n<thead><tr>"
        for column in columns { out += "<th scope=\"col\">\(HTML.escape(column))</th>" }
        out += "</tr></thead>\n<tbody>\n"
        for row in rows {
            out += "<tr>"
            for (index, cell) in row.enumerated() {
                out += index == 0 ? "<th scope=\"row\">\(HTML.escape(cell))</th>" : "<td>\(HTML.escape(cell))</td>"
            }
            out += "</tr>\n"
        }
        return out + "</tbody>\n</table>\n"
    }
}

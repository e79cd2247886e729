import HandzAnalyticsCore
import HandzQuery

extension SitePages {
    /// The trends page (issue 35 §1): event pickers and the series' text form, what to count and
    /// per which period, the range, comparison and breakdown controls; and — when series were
    /// asked for — the chart (a line per series and breakdown value), a table of every period and
    /// a table of totals over the range (distinct counts are not the sums of the periods'). With
    /// the comparison, the previous period's lines are drawn faded, period for period, and the
    /// totals table shows them beside the current ones. `refusal` is a ``SiteRefusal`` text.
    public static func trends(catalog: Catalog, controls: SiteControls, breakdowns: [String], report: TrendReport?, previous: TrendReport?,
                              refusal: String?, provenance: Provenance?) -> String {
        var body = navigation(current: "trends", dashboards: [], controls: controls)
        body += "<h1>Trends</h1>\n<p>Pick up to four events below, or write up to \(TrendQuery.maxSeries) series in the text form: series separated by <code>,</code>, a union of events by <code>|</code>, closed-set filters in brackets, e.g. <code>app_open[launch_source=push|deep_link],flow_saved_success|flow_draft_created</code>. Days and weeks are exact 24 h and 7-day periods from the first day of the range; months are calendar months (UTC). Users are installs resolved to their user id. The address reproduces the result, and <code>handz-analytics trend --series …</code> gives the same numbers (HandzQuery documentation, “Trends”).</p>\n"
        if let refusal { body += "<p class=\"error\" role=\"alert\">\(HTML.escape(refusal))</p>\n" }
        let enabled = catalog.events.filter(\.isEnabled).map(\.name).sorted()
        let picked = controls.series.flatMap(pickedEvents).flatMap { $0.count <= 4 ? $0 : nil } ?? []
        var fields = "<fieldset class=\"controls\"><legend>Series</legend>\n"
        for number in 1...4 {
            let current = number <= picked.count ? picked[number - 1] : nil
            fields += "<label for=\"event-\(number)\">Series \(number) <select id=\"event-\(number)\" name=\"event\"><option value=\"\">—</option>"
            for name in enabled { fields += "<option\(name == current ? " selected" : "")>\(HTML.escape(name))</option>" }
            fields += "</select></label>\n"
        }
        fields += "</fieldset>\n<label for=\"series\">Or the text form (used when filled) <input id=\"series\" name=\"series\" size=\"70\" maxlength=\"4096\" value=\"\(HTML.escape(refusal == nil && picked.isEmpty ? controls.series ?? "" : ""))\"></label>\n"
        fields += "<label for=\"measure\">Count <select id=\"measure\" name=\"measure\">"
        for measure in TrendQuery.Measure.allCases {
            fields += "<option value=\"\(measure.rawValue)\"\(measure == controls.measure ? " selected" : "")>\(measure.rawValue)</option>"
        }
        fields += "</select></label>\n<label for=\"interval\">Per <select id=\"interval\" name=\"interval\">"
        for interval in TrendQuery.Interval.allCases {
            fields += "<option value=\"\(interval.rawValue)\"\(interval == controls.interval ? " selected" : "")>\(interval.rawValue)</option>"
        }
        fields += "</select></label>\n"
        body += controlsForm(id: "trends", action: root + "/trends", controls: controls, breakdowns: breakdowns, submit: ("draw", "Draw the trend"),
                             extra: fields, funnelControls: false)
        if let report {
            body += trendSection(report, previous: previous, controls: controls)
        }
        if let provenance { body += footer(provenance) }
        let title = report.map { "Trends · \(rangeTitle($0.query.fromMs, $0.query.toMs))" } ?? "Trends"
        return Report.document(title: "\(title) — Handz analytics", body: body, generator: generator)
    }

    /// A line's name on the chart and in the tables: its series, and its breakdown value.
    static func trendLineName(_ line: TrendReport.Line, _ report: TrendReport) -> String {
        guard report.query.breakdown != nil else { return line.label }
        return line.label + " · " + (line.isOther ? "(other)" : line.value ?? "(not set)")
    }

    /// A period's label: its first day, or its month for calendar months.
    static func trendPeriodLabel(_ start: Int64, _ interval: TrendQuery.Interval) -> String {
        interval == .month ? String(Format.date(start).prefix(7)) : Format.date(start)
    }

    static func trendSection(_ report: TrendReport, previous: TrendReport?, controls: SiteControls) -> String {
        let query = report.query
        var out = "<p class=\"meta range\">Range: <strong>\(rangeTitle(query.fromMs, query.toMs))</strong> · \(report.periodStarts.count) \(query.interval.rawValue)s"
        if let previous { out += " · compared with \(rangeTitle(previous.query.fromMs, previous.query.toMs))" }
        if let breakdown = query.breakdown { out += " · broken down by <code>\(HTML.escape(breakdown))</code> (the \(BreakdownLimit.values) values with the largest totals, the rest as “(other)”)" }
        out += " · counting \(query.measure.rawValue)</p>\n"
        let names = report.lines.map { trendLineName($0, report) }
        // The legend shortens long names from the end: a breakdown's value goes first there.
        let legend = report.lines.map { line in
            query.breakdown == nil ? line.label : (line.isOther ? "(other)" : line.value ?? "(not set)") + (query.series.count > 1 ? " · " + line.label : "")
        }
        // The previous period's line of the same series and value, period for period.
        let previousLines: [TrendReport.Line?] = report.lines.map { line in
            previous?.lines.first { $0.series == line.series && $0.value == line.value && $0.isOther == line.isOther }
        }
        let labels = report.periodStarts.map { String(trendPeriodLabel($0, query.interval).dropFirst(query.interval == .month ? 0 : 5)) }
        out += "<section class=\"panel\" id=\"p-trend\" aria-labelledby=\"p-trend-h\">\n<h2 id=\"p-trend-h\">\(HTML.escape(query.measure.rawValue.capitalized)) per \(query.interval.rawValue)</h2>\n"
        // The chart in a figure with an id: the checks find its lines there.
        out += "<figure id=\"p-trend-chart\">" + Charts.timeSeries(id: "p-trend-svg", title: "\(query.measure.rawValue) per \(query.interval.rawValue)", fromMs: query.fromMs,
                                 days: report.periodStarts.count, series: zip(legend, report.lines).map { ($0, $1.counts.map { Double($0) }) },
                                 unit: query.measure.rawValue, percent: false,
                                 previous: zip(legend, previousLines).compactMap { name, line in line.map { (name, $0.counts.map { Double($0) }) } },
                                 periods: (labels, query.interval == .month ? "Month (UTC)" : "\(query.interval.rawValue.capitalized) starting (UTC)")) + "</figure>\n"
        var periods = Table(caption: "\(query.measure.rawValue.capitalized) per \(query.interval.rawValue)", columns: ["Period"] + names)
        periods.attributes = [("measure", query.measure.rawValue), ("interval", query.interval.rawValue)]
        for (index, start) in report.periodStarts.enumerated() {
            periods.append([trendPeriodLabel(start, query.interval)] + report.lines.map { Format.integer($0.counts[index]) }, key: ("period", Format.date(start)))
        }
        out += periods.html(id: "p-trend-table")
        var totals = Table(caption: "Over the whole range (a distinct count is not the sum of the periods')",
                           columns: ["Line", "Total"] + (previous == nil ? [] : ["Previous period", "Change"]))
        for (index, line) in report.lines.enumerated() {
            var row = [names[index], Format.integer(line.total)]
            if previous != nil {
                let before = previousLines[index]?.total ?? 0
                row += [Format.integer(before), Format.change(Double(line.total), Double(before), ratio: false)]
            }
            totals.append(row, key: ("line", "\(line.series)"))
        }
        out += totals.html(id: "p-trend-totals")
        return out + "</section>\n"
    }
}

import HandzAnalyticsCore
import HandzQuery

extension SitePages {
    /// The explorer's funnel modes (issue 35 §3): the order of the steps, up to two exclusion
    /// steps in the text form (a URL may carry up to `FunnelModes.maxExclusions`), and conversion
    /// over time. After a refusal the exclusion fields are left empty: nothing a client sent is
    /// echoed (CH33 §1).
    static func funnelModeFields(_ controls: SiteControls, refused: Bool) -> String {
        var out = "<fieldset class=\"controls\"><legend>Funnel modes</legend>\n<label for=\"order\">Order <select id=\"order\" name=\"order\">"
        let labels: [FunnelOrder: String] = [.sequential: "in order, anything between", .strict: "in order, nothing between", .any: "in any order"]
        for order in FunnelOrder.allCases {
            out += "<option value=\"\(order.rawValue)\"\(order == controls.order ? " selected" : "")>\(labels[order]!)</option>"
        }
        out += "</select></label>\n"
        for number in 1...2 {
            let value = refused || number > controls.exclusions.count ? "" : controls.exclusions[number - 1]
            out += "<label for=\"exclude-\(number)\">Exclude <input id=\"exclude-\(number)\" name=\"exclude\" size=\"30\" maxlength=\"1024\" placeholder=\"event[filters]@A-B\" value=\"\(HTML.escape(value))\"></label>\n"
        }
        out += "<label for=\"by\"><span><input type=\"checkbox\" id=\"by\" name=\"by\" value=\"day\"\(controls.byEntryDay ? " checked" : "")> Conversion over time (per day of entry)</span></label>\n</fieldset>\n"
        return out
    }

    /// Conversion over time: each UTC day's entries as a funnel of their own — the share that
    /// completed the last step, as a line per day, and a table of every day.
    static func conversionOverTime(_ report: FunnelReport) -> String {
        let days = report.entryDays
        let query = report.query
        var out = "<section class=\"panel\" id=\"p-over-time\" aria-labelledby=\"p-over-time-h\">\n<h2 id=\"p-over-time-h\">Conversion over time, by day of entry</h2>\n"
        out += "<p class=\"meta\">Each day's entries are a funnel of their own: an install (or user) entering on three days counts on each. Completed: reached step \(query.funnel.steps.count) within the window.</p>\n"
        let rates = days.map { $0.entered > 0 ? Double($0.completed) / Double($0.entered) : nil }
        out += "<figure id=\"p-over-time-chart\">" + Charts.timeSeries(id: "p-over-time-svg", title: "Conversion by day of entry", fromMs: query.fromMs, days: days.count,
                                                                      series: [("conversion", rates)], unit: "conversion", percent: true) + "</figure>\n"
        var table = Table(caption: "Conversion by day of entry", columns: ["Day", "Entered", "Completed", "Conversion"])
        for (day, rate) in zip(days, rates) {
            table.append([Format.date(day.dayMs), Format.integer(day.entered), Format.integer(day.completed), Format.percent(rate)],
                         key: ("day", Format.date(day.dayMs)))
        }
        return out + table.html(id: "p-over-time-table") + "</section>\n"
    }
}

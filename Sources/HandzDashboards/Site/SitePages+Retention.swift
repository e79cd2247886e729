import HandzAnalyticsCore
import HandzQuery

extension SitePages {
    /// The retention page (issue 35 §2): cohorts by day or week of install time over the range,
    /// what counts as a return, who is counted; the curve (every cohort together, the previous
    /// period's faded when compared), the matrix of rates (a row per cohort, "–" where its period
    /// has not ended within the data) and the matrix of counts, whose curve row gives the
    /// returned and eligible actors behind each rate.
    public static func retention(catalog: Catalog, controls: SiteControls, breakdowns: [String], report: RetentionReport?, previous: RetentionReport?,
                                 refusal: String?, provenance: Provenance?) -> String {
        var body = navigation(current: "retention", dashboards: [], controls: controls)
        body += "<h1>Retention</h1>\n<p>Installs (or users) grouped by the day or week of their install time — the first stored <code>app_open</code>, as the KPIs count it — and, for each day 0–30 or week 0–12 after it, the share who came back: an event of the returning series in that period of their own (exact 24 h or 7-day periods from their install time). A period counts only once it has ended within the data. Day 1, 7 and 30 of the curve are the KPIs <code>retention_d1</code>, <code>retention_d7</code> and <code>retention_d30</code> over the same range. The address reproduces the result, and <code>handz-analytics retention</code> gives the same numbers (HandzQuery documentation, “Retention”).</p>\n"
        if let refusal { body += "<p class=\"error\" role=\"alert\">\(HTML.escape(refusal))</p>\n" }
        var fields = "<label for=\"returning\">Returning on <input id=\"returning\" name=\"returning\" size=\"50\" maxlength=\"4096\" placeholder=\"app_open, any, or a series\" value=\"\(HTML.escape(refusal == nil ? controls.returning ?? "" : ""))\"></label>\n"
        fields += "<label for=\"interval\">Cohorts and periods <select id=\"interval\" name=\"interval\">"
        for interval in RetentionQuery.Interval.allCases {
            fields += "<option value=\"\(interval.rawValue)\"\(interval.rawValue == controls.interval.rawValue ? " selected" : "")>\(interval.rawValue)s</option>"
        }
        fields += "</select></label>\n<label for=\"actor\">Count <select id=\"actor\" name=\"actor\">"
        for actor in ActorKind.allCases { fields += "<option value=\"\(actor.rawValue)\"\(actor == controls.panel.actor ? " selected" : "")>\(actor == .user ? "users (signed in)" : "installs")</option>" }
        fields += "</select></label>\n"
        body += controlsForm(id: "retention", action: root + "/retention", controls: controls, breakdowns: [], submit: ("draw", "Draw the matrix"),
                             extra: fields, funnelControls: false, breakdown: false)
        if let report { body += retentionSection(report, previous: previous) }
        if let provenance { body += footer(provenance) }
        let title = report.map { "Retention · \(rangeTitle($0.query.fromMs, $0.query.toMs))" } ?? "Retention"
        return Report.document(title: "\(title) — Handz analytics", body: body, generator: generator)
    }

    static func retentionSection(_ report: RetentionReport, previous: RetentionReport?) -> String {
        let query = report.query
        let unit = query.interval == .day ? "Day" : "Week"
        let who = query.actor == .user ? "users" : "installs"
        var out = "<p class=\"meta range\">Cohorts: <strong>\(rangeTitle(query.fromMs, query.toMs))</strong> · \(report.cohorts.count) \(query.interval.rawValue)s · \(Format.integer(report.overall.actors)) \(who)"
        if let previous { out += " · compared with \(rangeTitle(previous.query.fromMs, previous.query.toMs))" }
        out += "</p>\n"
        let periods = report.overall.returned.indices
        let labels = periods.map { "\(unit.prefix(1))\($0)" }
        out += "<section class=\"panel\" id=\"p-retention\" aria-labelledby=\"p-retention-h\">\n<h2 id=\"p-retention-h\">Retention curve: every cohort</h2>\n"
        let curve = { (cohort: RetentionReport.Cohort) in periods.map { cohort.rate($0) } }
        out += "<figure id=\"p-retention-chart\">" + Charts.timeSeries(id: "p-retention-svg", title: "Share of \(who) returning, per \(query.interval.rawValue) after install", fromMs: query.fromMs,
                                 days: periods.count, series: [("all cohorts", curve(report.overall))], unit: "% of eligible \(who)", percent: true,
                                 previous: previous.map { [("all cohorts", curve($0.overall))] } ?? [],
                                 periods: (labels, "\(unit) after install time")) + "</figure>\n"
        var rates = Table(caption: "Share who returned, by cohort (– : the period has not ended within the data)", columns: ["Cohort", who.capitalized] + labels)
        rates.attributes = [("interval", query.interval.rawValue)]
        var counts = Table(caption: "Returned / eligible \(who), by cohort", columns: ["Cohort", who.capitalized] + labels)
        for (name, keyValue, cohort) in report.cohorts.map({ (Format.date($0.start), Format.date($0.start), $0) }) + [("All cohorts", "all", report.overall)] {
            let key = ("cohort", keyValue)
            rates.append([name, Format.integer(cohort.actors)] + periods.map { Format.percent(cohort.rate($0)) }, key: key)
            counts.append([name, Format.integer(cohort.actors)] + periods.map { "\(Format.integer(cohort.returned[$0])) / \(Format.integer(cohort.eligible[$0]))" }, key: key)
        }
        if let previous {
            rates.append(["Previous period", Format.integer(previous.overall.actors)] + periods.map { Format.percent(previous.overall.rate($0)) }, key: ("cohort", "previous"))
        }
        out += rates.html(id: "p-retention-rates")
        out += counts.html(id: "p-retention-counts")
        return out + "</section>\n"
    }
}

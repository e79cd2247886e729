import HandzAnalyticsCore
import HandzQuery

/// The pages `serve` hosts under `/dashboards/` (issue 16): the login form, the index, one page
/// per CH33 §7 dashboard and the funnel explorer. Pure like ``Report``: data and controls in, HTML
/// out, drawn by the same `PanelRenderer` as the static report. No script, no external fetch;
/// every control is a GET form, so every view is a URL. Everything from the catalog, the
/// dashboards or the data passes through ``HTML/escape(_:)``.
public enum SitePages {
    /// Where the pages live on the server.
    public static let root = "/dashboards"
    static let generator = "`handz-analytics serve`"

    /// What the footer says about how the page was made.
    public struct Provenance: Sendable {
        public var renderedAt: String
        public var seconds: Double
        public var source: String

        public init(renderedAt: String, seconds: Double, source: String) {
            self.renderedAt = renderedAt
            self.seconds = seconds
            self.source = source
        }
    }

    // MARK: - Login and errors

    /// The login form: an analyst key's id and secret (issue 16 §1). `error` is a fixed text.
    public static func login(error: String? = nil) -> String {
        var body = "<h1>Handz analytics</h1>\n<p>Sign in with an <strong>analyst</strong> key (<code>handz-analytics keys create --scope analyst</code>). Ingest and admin keys cannot sign in.</p>\n"
        if let error { body += "<p class=\"error\" role=\"alert\">\(HTML.escape(error))</p>\n" }
        body += """
        <form id="login" class="controls" method="post" action="\(root)/login">
        <label for="key_id">Key id <input id="key_id" name="key_id" autocomplete="username" required maxlength="64"></label>
        <label for="secret">Secret <input id="secret" name="secret" type="password" autocomplete="current-password" required maxlength="64"></label>
        <button id="login-submit" type="submit">Sign in</button>
        </form>

        """
        return Report.document(title: "Sign in — Handz analytics", body: body, generator: generator)
    }

    /// A refusal or failure page: `message` is one of the site's fixed texts, never a request's.
    public static func error(title: String, message: String, signedIn: Bool) -> String {
        var body = signedIn ? navigation(current: nil, dashboards: [], controls: SiteControls()) : ""
        body += "<h1>\(HTML.escape(title))</h1>\n<p class=\"error\" role=\"alert\">\(HTML.escape(message))</p>\n"
        body += "<p><a href=\"\(root)/\">Back to the dashboards</a></p>\n"
        return Report.document(title: "\(title) — Handz analytics", body: body, generator: generator)
    }

    // MARK: - Index

    public static func index(_ dashboards: [DashboardDefinition], controls: SiteControls) -> String {
        var body = navigation(current: "index", dashboards: dashboards, controls: controls)
        body += "<h1>Handz analytics dashboards</h1>\n<p class=\"meta\">Rendered on request from the store this server ingests into (read-only). Pick a dashboard, then change its range, comparison and breakdown above its panels; every view is a link you can share.</p>\n<ul class=\"index\">\n"
        for dashboard in dashboards {
            body += "<li><a class=\"dashboard-link\" href=\"\(HTML.escape(link(dashboard: dashboard.id, controls)))\">\(HTML.escape(dashboard.title))</a> <span class=\"spec\">\(HTML.escape(dashboard.spec))</span> — \(HTML.escape(dashboard.description)) (\(dashboard.panels.count) panels)</li>\n"
        }
        body += "<li><a href=\"\(HTML.escape(root + "/explore" + suffix(controls)))\">Funnel explorer</a> — any 2 to \(FunnelDefinition.maxSteps) enabled events, with filters, a window and a breakdown.</li>\n"
        body += "<li><a href=\"\(HTML.escape(root + "/trends" + suffix(controls)))\">Trends</a> — events, installs, users or sessions of up to \(TrendQuery.maxSeries) event series per day, week or month, with filters and a breakdown.</li>\n"
        body += "<li><a href=\"\(HTML.escape(root + "/retention" + suffix(controls)))\">Retention</a> — cohorts by day or week of install time, who came back in each day (0–30) or week (0–12) after, and the curve; D1, D7 and D30 as the KPIs count them.</li>\n"
        body += "<li><a href=\"\(HTML.escape(root + "/paths" + suffix(controls)))\">Paths</a> — what sessions did right after (or before) an event, up to \(PathQuery.maxDepth) steps, as a flow chart and a table.</li>\n</ul>\n"
        return Report.document(title: "Handz analytics dashboards", body: body, generator: generator)
    }

    // MARK: - A dashboard

    /// One dashboard over `data`'s range; with `previous`, the same panels over the previous
    /// period beside every figure.
    public static func dashboard(_ data: DashboardData, previous: DashboardData?, all: [DashboardDefinition], controls: SiteControls,
                                 breakdowns: [String], provenance: Provenance) -> String {
        let dashboard = data.dashboard
        var body = navigation(current: dashboard.id, dashboards: all, controls: controls)
        body += "<h1>\(HTML.escape(dashboard.title)) <span class=\"spec\">\(HTML.escape(dashboard.spec))</span></h1>\n"
        body += "<p>\(HTML.escape(dashboard.description))</p>\n"
        body += controlsForm(id: "controls", action: link(dashboard: dashboard.id, SiteControls()), controls: controls, breakdowns: breakdowns, submit: ("apply", "Apply"))
        body += rangeLine(data.fromMs, data.toMs, previous: previous.map { ($0.fromMs, $0.toMs) }, controls: controls)
        for (index, panel) in data.panels.enumerated() {
            var renderer = PanelRenderer(data: panel, fromMs: data.fromMs, toMs: data.toMs, id: "p-" + HTML.slug(panel.panel.id))
            renderer.previous = previous.map { $0.panels[index] }
            body += renderer.html()
        }
        body += footer(provenance)
        return Report.document(title: "\(dashboard.title) · \(rangeTitle(data.fromMs, data.toMs)) — Handz analytics", body: body, generator: generator)
    }

    // MARK: - The funnel explorer

    /// The explorer (issue 16 §3): step pickers for the catalog's enabled events, the text form
    /// for filters and longer funnels, and — when a funnel was asked for — its chart and table,
    /// drawn like a catalogued funnel's. `refusal` is a ``SiteRefusal`` text.
    public static func explorer(catalog: Catalog, controls: SiteControls, breakdowns: [String], range: (fromMs: Int64, toMs: Int64),
                                report: FunnelReport?, previous: FunnelReport?, refusal: String?, provenance: Provenance?, notes: [String] = []) -> String {
        var body = navigation(current: "explore", dashboards: [], controls: controls)
        body += "<h1>Funnel explorer</h1>\n<p>Pick 2 to 6 steps below, or write up to \(FunnelDefinition.maxSteps) in the text form: steps separated by <code>,</code>, alternatives by <code>|</code>, closed-set filters in brackets, e.g. <code>app_open[launch_source=push|deep_link],onboarding_viewed,flow_builder_opened|library_viewed</code>. Counted like the catalog's funnels (HandzQuery documentation, “Funnel semantics”); the address reproduces the result, and <code>handz-analytics funnel --steps …</code> gives the same numbers.</p>\n"
        if let refusal { body += "<p class=\"error\" role=\"alert\">\(HTML.escape(refusal))</p>\n" }
        let enabled = catalog.events.filter(\.isEnabled).map(\.name).sorted()
        // A funnel of single events without filters shows in the pickers, any other in the text
        // field: whichever holds it can be edited, and the text is used whenever it is filled.
        let picked = controls.steps.flatMap(pickedEvents) ?? []
        var pickers = "<fieldset class=\"controls\"><legend>Steps</legend>\n"
        for number in 1...6 {
            let current = number <= picked.count ? picked[number - 1] : nil
            pickers += "<label for=\"step-\(number)\">Step \(number) <select id=\"step-\(number)\" name=\"step\"><option value=\"\">—</option>"
            for name in enabled { pickers += "<option\(name == current ? " selected" : "")>\(HTML.escape(name))</option>" }
            pickers += "</select></label>\n"
        }
        pickers += "</fieldset>\n<label for=\"steps\">Or the text form (used when filled) <input id=\"steps\" name=\"steps\" size=\"70\" maxlength=\"4096\" value=\"\(HTML.escape(refusal == nil && picked.isEmpty ? controls.steps ?? "" : ""))\"></label>\n"
        pickers += funnelModeFields(controls, refused: refusal != nil)
        body += controlsForm(id: "explorer", action: root + "/explore", controls: controls, breakdowns: breakdowns, submit: ("run", "Run the funnel"), extra: pickers)
        if var report {
            // Conversion over time keeps its days as the report's buckets: the funnel above is
            // the whole range's, the days get their own chart and table below.
            let days = report.query.byEntryDay ? conversionOverTime(report) : ""
            if report.query.byEntryDay { report.breakdown = nil }
            let previous = previous.map { previous in
                var previous = previous
                if previous.query.byEntryDay { previous.breakdown = nil }
                return previous
            }
            body += rangeLine(range.fromMs, range.toMs, previous: previous.map { ($0.query.fromMs, $0.query.toMs) }, controls: controls)
            let unit = controls.panel.actor == .user ? "users" : "installs"
            let panel = PanelDefinition(id: "explorer", title: "Ad-hoc funnel: \(report.query.funnel.steps.count) steps", bullet: "", chart: .funnel,
                                        sources: [PanelSource(label: "ad-hoc funnel", kind: .funnel(id: AdHocFunnel.id, windowSeconds: nil))], unit: unit)
            var renderer = PanelRenderer(data: PanelData(panel: panel, sources: [SourceData(label: "ad-hoc funnel", result: .funnel(report))], notes: notes),
                                         fromMs: range.fromMs, toMs: range.toMs, id: "p-explorer")
            renderer.previous = previous.map { PanelData(panel: panel, sources: [SourceData(label: "ad-hoc funnel", result: .funnel($0))]) }
            body += renderer.html()
            body += days
        }
        if let provenance { body += footer(provenance) }
        let title = report == nil ? "Funnel explorer" : "Funnel explorer · \(rangeTitle(range.fromMs, range.toMs))"
        return Report.document(title: "\(title) — Handz analytics", body: body, generator: generator)
    }

    /// The steps of a text-form funnel for the pickers, when each step is one event without a
    /// filter and there are at most six; nil otherwise.
    static func pickedEvents(_ steps: String) -> [String]? {
        let parts = steps.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= 6, !steps.contains("["), !steps.contains("|") else { return nil }
        return parts.map(String.init)
    }

    // MARK: - Parts

    /// The address of a dashboard with these controls.
    public static func link(dashboard id: String, _ controls: SiteControls) -> String {
        "\(root)/d/\(HTML.slug(id))" + suffix(controls)
    }

    static func suffix(_ controls: SiteControls) -> String {
        var kept = controls
        kept.steps = nil
        (kept.order, kept.exclusions, kept.byEntryDay) = (.sequential, [], false)
        (kept.series, kept.measure, kept.interval, kept.returning) = (nil, .events, .day, nil)
        (kept.anchor, kept.direction, kept.depth) = (nil, .next, 3)
        let query = kept.query
        return query.isEmpty ? "" : "?" + query
    }

    static func navigation(current: String?, dashboards: [DashboardDefinition], controls: SiteControls) -> String {
        var out = "<nav><a href=\"\(root)/\(HTML.escape(suffix(controls)))\">\(current == "index" ? "<strong>All dashboards</strong>" : "All dashboards")</a>"
        for dashboard in dashboards {
            let title = HTML.escape(dashboard.title)
            out += " · " + (dashboard.id == current ? "<strong>\(title)</strong>" : "<a href=\"\(HTML.escape(link(dashboard: dashboard.id, controls)))\">\(title)</a>")
        }
        out += " · " + (current == "explore" ? "<strong>Funnel explorer</strong>" : "<a href=\"\(HTML.escape(root + "/explore" + suffix(controls)))\">Funnel explorer</a>")
        out += " · " + (current == "trends" ? "<strong>Trends</strong>" : "<a href=\"\(HTML.escape(root + "/trends" + suffix(controls)))\">Trends</a>")
        out += " · " + (current == "retention" ? "<strong>Retention</strong>" : "<a href=\"\(HTML.escape(root + "/retention" + suffix(controls)))\">Retention</a>")
        out += " · " + (current == "paths" ? "<strong>Paths</strong>" : "<a href=\"\(HTML.escape(root + "/paths" + suffix(controls)))\">Paths</a>")
        out += " · <form class=\"inline\" method=\"post\" action=\"\(root)/logout\"><button id=\"logout\" type=\"submit\">Sign out</button></form></nav>\n"
        return out
    }

    /// The range, comparison, breakdown, actor and window controls as one GET form.
    static func controlsForm(id: String, action: String, controls: SiteControls, breakdowns: [String], submit: (id: String, label: String), extra: String = "",
                             funnelControls: Bool = true, breakdown: Bool = true, compare: Bool = true) -> String {
        var out = "<form id=\"\(id)\" class=\"controls\" method=\"get\" action=\"\(HTML.escape(action))\">\n" + extra
        out += "<label for=\"range\">Range <select id=\"range\" name=\"range\">"
        for preset in SiteControls.RangePreset.allCases {
            out += "<option value=\"\(preset.rawValue)\"\(preset == controls.range ? " selected" : "")>\(HTML.escape(preset.label))</option>"
        }
        out += "</select></label>\n"
        out += "<label for=\"from\">From <input type=\"date\" id=\"from\" name=\"from\" value=\"\(controls.fromDayMs.map(Format.date) ?? "")\"></label>\n"
        out += "<label for=\"to\">To (inclusive) <input type=\"date\" id=\"to\" name=\"to\" value=\"\(controls.toDayMs.map(Format.date) ?? "")\"></label>\n"
        if compare {
            out += "<label for=\"compare\"><span><input type=\"checkbox\" id=\"compare\" name=\"compare\" value=\"previous\"\(controls.compare ? " checked" : "")> Compare with the previous period</span></label>\n"
        }
        if breakdown {
            out += "<label for=\"breakdown\">Breakdown <select id=\"breakdown\" name=\"breakdown\"><option value=\"\">none</option>"
            for name in breakdowns { out += "<option\(name == controls.panel.breakdown ? " selected" : "")>\(HTML.escape(name))</option>" }
            out += "</select></label>\n"
        }
        guard funnelControls else { return out + "<button id=\"\(submit.id)\" type=\"submit\">\(HTML.escape(submit.label))</button>\n</form>\n" }
        out += "<label for=\"actor\">Count <select id=\"actor\" name=\"actor\">"
        for actor in ActorKind.allCases { out += "<option value=\"\(actor.rawValue)\"\(actor == controls.panel.actor ? " selected" : "")>\(actor == .user ? "users (signed in)" : "installs")</option>" }
        out += "</select></label>\n"
        out += "<label for=\"window\">Funnel window <input id=\"window\" name=\"window\" size=\"6\" maxlength=\"8\" placeholder=\"own\" value=\"\(controls.panel.windowSeconds.map { DurationText.text(seconds: $0) } ?? "")\"></label>\n"
        return out + "<button id=\"\(submit.id)\" type=\"submit\">\(HTML.escape(submit.label))</button>\n</form>\n"
    }

    /// `2026-03-01 – 2026-03-14`: both days inclusive, as the page title says it.
    public static func rangeTitle(_ fromMs: Int64, _ toMs: Int64) -> String {
        "\(Format.date(fromMs)) – \(Format.date(toMs - 1))"
    }

    static func rangeLine(_ fromMs: Int64, _ toMs: Int64, previous: (Int64, Int64)?, controls: SiteControls) -> String {
        let days = (toMs - fromMs + SiteControls.dayMs - 1) / SiteControls.dayMs
        var out = "<p class=\"meta range\">Range: <strong>\(rangeTitle(fromMs, toMs))</strong> (\(Format.integer(days)) UTC days)"
        if let previous { out += " · compared with \(rangeTitle(previous.0, previous.1))" }
        if let breakdown = controls.panel.breakdown { out += " · funnels and daily counts broken down by <code>\(HTML.escape(breakdown))</code> where their events carry it" }
        out += " · funnels and KPIs count \(controls.panel.actor == .user ? "users" : "installs")"
        if let window = controls.panel.windowSeconds { out += " · every funnel's window: \(Format.duration(milliseconds: window * 1000))" }
        return out + "</p>\n"
    }

    static func footer(_ provenance: Provenance) -> String {
        "<p class=\"meta\">Data: \(HTML.escape(provenance.source)) · rendered \(HTML.escape(provenance.renderedAt)) in \(String(format: "%.2f", provenance.seconds)) s by <code>handz-analytics serve</code>.</p>\n"
    }
}

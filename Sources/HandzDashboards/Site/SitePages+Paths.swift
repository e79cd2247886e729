import HandzAnalyticsCore
import HandzQuery

extension SitePages {
    /// The paths page (issue 35 §4): the anchor (a series), next or previous, how many steps; the
    /// flow chart, the commonest paths with their sessions and share, and each step's events.
    public static func paths(controls: SiteControls, report: PathReport?, refusal: String?, provenance: Provenance?) -> String {
        var body = navigation(current: "paths", dashboards: [], controls: controls)
        body += "<h1>Paths</h1>\n<p>What sessions did right after (or right before) an event: per session, its first anchor event in the range, then its next (previous) events in order of time, whatever they are, up to \(PathQuery.maxDepth) steps. Counted in sessions, so the paths add up to the sessions with the anchor. The address reproduces the result, and <code>handz-analytics paths</code> gives the same numbers (HandzQuery documentation, “Paths”).</p>\n"
        if let refusal { body += "<p class=\"error\" role=\"alert\">\(HTML.escape(refusal))</p>\n" }
        var fields = "<label for=\"anchor\">Anchor <input id=\"anchor\" name=\"anchor\" size=\"50\" maxlength=\"4096\" placeholder=\"flow_save_attempt\" value=\"\(HTML.escape(refusal == nil ? controls.anchor ?? "" : ""))\"></label>\n"
        fields += "<label for=\"direction\">Direction <select id=\"direction\" name=\"direction\">"
        for direction in PathQuery.Direction.allCases {
            fields += "<option value=\"\(direction.rawValue)\"\(direction == controls.direction ? " selected" : "")>\(direction == .next ? "what came next" : "what came before")</option>"
        }
        fields += "</select></label>\n<label for=\"depth\">Steps <select id=\"depth\" name=\"depth\">"
        for depth in 1...PathQuery.maxDepth { fields += "<option\(depth == controls.depth ? " selected" : "")>\(depth)</option>" }
        fields += "</select></label>\n"
        body += controlsForm(id: "paths", action: root + "/paths", controls: controls, breakdowns: [], submit: ("draw", "Draw the paths"),
                             extra: fields, funnelControls: false, breakdown: false, compare: false)
        if let report { body += pathsSection(report) }
        if let provenance { body += footer(provenance) }
        let title = report.map { "Paths · \(rangeTitle($0.query.fromMs, $0.query.toMs))" } ?? "Paths"
        return Report.document(title: "\(title) — Handz analytics", body: body, generator: generator)
    }

    static func pathsSection(_ report: PathReport) -> String {
        let query = report.query
        let ended = query.direction == .next ? "(session ended)" : "(session started)"
        let anchor = TrendQuery.text([query.anchor])
        var out = "<p class=\"meta range\">Anchors: <strong>\(rangeTitle(query.fromMs, query.toMs))</strong> · \(Format.integer(report.sessions)) sessions with <code>\(HTML.escape(anchor))</code> · \(query.direction == .next ? "the events after it" : "the events before it, nearest first")</p>\n"
        out += "<section class=\"panel\" id=\"p-paths\" aria-labelledby=\"p-paths-h\">\n<h2 id=\"p-paths-h\">Paths \(query.direction == .next ? "after" : "before") \(HTML.escape(anchor))</h2>\n"
        let nodes = report.nodes, links = report.links
        let columns = [[(event: Optional(anchor), sessions: report.sessions)]] + (1...query.depth).map { step in
            nodes.filter { $0.step == step }.map { (event: $0.event, sessions: $0.sessions) }
        }
        let pairs = (0..<query.depth).map { step in
            links.filter { $0.step == step }.map { (from: $0.step == 0 ? Optional(anchor) : $0.from, to: $0.to, sessions: $0.sessions) }
        }
        out += "<figure id=\"p-paths-chart\">" + FlowChart.svg(id: "p-paths-svg", title: "Sessions after \(anchor)", anchor: anchor, ended: ended,
                                                              columns: columns, links: pairs) + "</figure>\n"
        var table = Table(caption: "Paths, most sessions first", columns: (1...query.depth).map { "Step \($0)" } + ["Sessions", "Share"])
        for path in report.paths.prefix(50) {
            table.append(path.steps.map { $0 ?? ended } + [Format.integer(path.sessions), Format.percent(Double(path.sessions) / Double(max(report.sessions, 1)))])
        }
        out += table.html(id: "p-paths-table")
        var steps = Table(caption: "Each step's events (sessions)", columns: ["Step", "Event", "Sessions"])
        for node in nodes { steps.append(["\(node.step)", node.event ?? ended, Format.integer(node.sessions)]) }
        out += steps.html(id: "p-paths-steps")
        return out + "</section>\n"
    }
}

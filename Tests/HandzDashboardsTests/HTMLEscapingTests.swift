import Foundation
import HandzAnalyticsCore
import HandzDashboards
import HandzQuery
import Testing

@Suite("HTML escaping")
struct HTMLEscapingTests {
    @Test("markup characters in text become entities")
    func escapesMarkup() {
        #expect(HTML.escape("<script>alert('x') & \"y\"</script>") == "&lt;script&gt;alert(&apos;x&apos;) &amp; &quot;y&quot;&lt;/script&gt;")
        #expect(HTML.escape("plain text") == "plain text")
    }

    @Test("a dashboard whose titles, bullets and notes hold markup renders it as text, never as elements")
    func hostileDefinitionsStayText() {
        let hostile = "<img src=x onerror=alert(1)>\"'&"
        var panel = PanelDefinition(id: "p", title: hostile, bullet: hostile, chart: .stat, unit: hostile, note: hostile, missing: hostile)
        panel.sources = [PanelSource(label: hostile, kind: .query(EventQuery(kind: .followedBy, match: EventMatch(events: ["app_open"]))))]
        let dashboard = DashboardDefinition(id: "x", title: hostile, spec: hostile, description: hostile, panels: [panel])
        let data = DashboardData(dashboard: dashboard, fromMs: 0, toMs: 86_400_000,
                                 panels: [PanelData(panel: panel, sources: [SourceData(label: hostile, result: .query(.conversion(numerator: 1, denominator: 2)))],
                                                    notes: [hostile])])
        let pages = Report.pages([data], source: hostile, generatedAt: hostile)
        // The catalog-version notes (docs/catalog-releases.md) are shown, as text.
        #expect(pages.contains { $0.html.contains("<p class=\"note versions\">Catalog versions: &lt;img src=x") })
        for page in pages {
            #expect(!page.html.contains("<img"), "\(page.fileName)")
            #expect(!page.html.contains("onerror=alert(1)>"), "\(page.fileName)")
            #expect(page.html.contains("&lt;img src=x onerror=alert(1)&gt;"), "\(page.fileName)")
        }
    }

    @Test("pages load nothing from anywhere: no script, no external URL, no font")
    func selfContained() {
        let panel = PanelDefinition(id: "p", title: "t", bullet: "b", chart: .stat)
        let data = DashboardData(dashboard: DashboardDefinition(id: "x", title: "X", spec: "CH33 §7.1", panels: [panel]), fromMs: 0, toMs: 1,
                                 panels: [PanelData(panel: panel, sources: [])])
        for page in Report.pages([data], source: "s", generatedAt: "g") {
            #expect(!page.html.contains("<script"))
            #expect(!page.html.contains("@import") && !page.html.contains("@font-face") && !page.html.contains("url("))
            #expect(!page.html.contains("src=\"http") && !page.html.contains("href=\"http"))
        }
    }
}

import HandzAnalyticsCore
import HandzCatalog
@testable import HandzDashboards
import HandzQuery
import HandzTestSupport
import Testing

/// The served pages' controls (issue 16 §2): what a URL may say, how it reads back, and that a
/// refusal never repeats what it refused.
@Suite struct SiteControlsTests {
    let catalog = RepositoryCatalog.catalog
    var breakdowns: [String] { SiteControls.breakdownOptions(catalog) }

    func parse(_ query: String, explorer: Bool = false) throws(SiteRefusal) -> SiteControls {
        try SiteControls.parse(FormFields.pairs(query) ?? [], breakdowns: breakdowns, catalog: catalog, page: explorer ? .explorer : .dashboard)
    }

    @Test("every control reads back from its canonical query, defaults left out")
    func roundTrip() throws {
        let controls = try parse("range=custom&from=2026-03-01&to=2026-03-14&compare=previous&breakdown=start_type&actor=user&window=48h")
        #expect(controls.range == .custom && controls.compare && controls.panel.actor == .user)
        #expect(controls.panel.windowSeconds == 172_800 && controls.panel.breakdown == "start_type")
        #expect(controls.query == "range=custom&from=2026-03-01&to=2026-03-14&compare=previous&breakdown=start_type&actor=user&window=2d")
        #expect(try parse(controls.query) == controls)
        // A form's blank fields are "not set".
        #expect(try parse("range=&from=&to=&compare=&breakdown=&actor=&window=") == SiteControls())
        #expect(SiteControls().query == "")
    }

    @Test("ranges: presets end on the last day with data, custom days are inclusive, the previous period abuts")
    func ranges() throws {
        let day: Int64 = 86_400_000
        let first = 20_000 * day + 5_000, last = 20_020 * day + 7_000
        #expect(try parse("range=7d").resolvedRange(stored: (first, last), nowMs: 0) == (20_014 * day, 20_021 * day))
        #expect(try parse("range=all").resolvedRange(stored: (first, last), nowMs: 0) == (20_000 * day, 20_021 * day))
        let custom = try parse("range=custom&from=2026-03-01&to=2026-03-14").resolvedRange(stored: nil, nowMs: 0)
        #expect(custom.toMs - custom.fromMs == 14 * day)
        #expect(SitePages.rangeTitle(custom.fromMs, custom.toMs) == "2026-03-01 – 2026-03-14")
        #expect(SiteControls.previousPeriod(custom) == (custom.fromMs - 14 * day, custom.fromMs))
        // One event with a far-off time does not make `all` longer than a custom range may be.
        let far = try parse("range=all").resolvedRange(stored: (0, 20_020 * day), nowMs: 0)
        #expect(far.toMs - far.fromMs == SiteControls.maxDays * day)
    }

    @Test("refusals name the parameter, never its value", arguments: [
        ("range=zq9x", "invalid_parameter"), ("range=custom&from=2026-13-01&to=2026-03-01", "invalid_parameter"),
        ("range=custom&from=2026-02-30&to=2026-03-01", "invalid_parameter"), ("range=custom&from=2026-03-02&to=2026-03-01", "invalid_range"),
        ("range=custom&from=2026-03-01", "invalid_parameter"), ("breakdown=zq9x", "invalid_parameter"),
        ("breakdown=user_id", "invalid_parameter"), ("actor=zq9x", "invalid_parameter"), ("window=0d", "invalid_parameter"),
        ("window=91d", "invalid_parameter"), ("window=7zq9x", "invalid_parameter"), ("compare=zq9x", "invalid_parameter"),
        ("zq9x=1", "unknown_parameter"), ("range=7d&range=30d", "repeated_parameter"), ("steps=app_open,onboarding_viewed", "unknown_parameter"),
    ])
    func refusals(query: String, code: String) {
        #expect {
            try parse(query)
        } throws: { error in
            guard let refusal = error as? SiteRefusal else { return false }
            return refusal.code == code && !refusal.description.contains("zq9x") && !refusal.description.contains("user_id")
        }
    }

    @Test("the explorer: pickers become the text form; unknown or disabled events and bad filters are refused without echo")
    func explorer() throws {
        let picked = try parse("step=app_open&step=onboarding_viewed&step=&step=flow_builder_opened", explorer: true)
        #expect(picked.steps == "app_open,onboarding_viewed,flow_builder_opened")
        #expect(picked.query == "steps=app_open,onboarding_viewed,flow_builder_opened")
        var filtered = SiteControls()
        filtered.steps = "app_open[start_type=cold],onboarding_viewed"
        #expect(filtered.query == "steps=app_open[start_type=cold],onboarding_viewed", "the text form stays readable in the address")
        let text = try parse("steps=app_open%5Bstart_type%3Dcold%5D,onboarding_viewed&step=flow_builder_opened", explorer: true)
        #expect(text.steps == "app_open[start_type=cold],onboarding_viewed", "the text form wins when filled")
        for bad in ["steps=app_open,zq9x", "steps=zq9x", "steps=app_open,%3Cscript%3Ezq9x", "steps=app_open[zq9x=1],onboarding_viewed", "step=zq9x"] {
            #expect(throws: SiteRefusal.self, "\(bad)") { try parse(bad, explorer: true) }
            do {
                _ = try parse(bad, explorer: true)
            } catch {
                #expect(!error.description.contains("zq9x"), "\(bad)")
            }
        }
    }

    @Test("form text: percent escapes and + decode; a malformed escape or invalid UTF-8 is refused")
    func formFields() {
        let pairs = FormFields.pairs("a=1+2&b=%3Cx%3E&c&&d=")
        #expect(pairs?.map(\.name) == ["a", "b", "c", "d"])
        #expect(pairs?.map(\.value) == ["1 2", "<x>", "", ""])
        #expect(FormFields.pairs("a=%ZZ") == nil)
        #expect(FormFields.pairs("a=%C3") == nil)
        #expect(FormFields.pairs("a=%C3%A9")?.first?.value == "é")
    }

    @Test("durations in human units, changes with signs, long tables collapsed")
    func readableFigures() {
        #expect(Format.duration(milliseconds: 42_300) == "42.3 s")
        #expect(Format.duration(milliseconds: 1_154_700) == "19 min 15 s")
        #expect(Format.duration(milliseconds: 3_600_000) == "1 h")
        #expect(Format.duration(milliseconds: 11_100_000) == "3 h 5 min")
        #expect(Format.duration(milliseconds: 604_800_000) == "7 d")
        #expect(Format.duration(milliseconds: 187_200_000) == "2 d 4 h")
        #expect(Format.duration(milliseconds: nil) == "–")
        #expect(Format.change(110, 100, ratio: false) == "+10.0%")
        #expect(Format.change(90, 100, ratio: false) == "−10.0%")
        #expect(Format.change(5, 0, ratio: false) == "–")
        #expect(Format.change(0.5, 0.45, ratio: true) == "+5.0 pp")
        #expect(Format.change(-5, -10, ratio: false) == "+50.0%", "up from a negative figure is up")
        var short = Table(caption: "c", columns: ["a", "b"])
        for index in 0..<Table.openRowLimit { short.rows.append(["\(index)", "x"]) }
        #expect(!short.html(id: "t").contains("<details"))
        short.rows.append(["9", "x"])
        #expect(short.html(id: "t").hasPrefix("<details class=\"table\"><summary>Table: c (9 rows)</summary>"))
    }
}

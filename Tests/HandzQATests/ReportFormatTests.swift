import Foundation
import HandzAnalyticsCore
import HandzQA
import HandzSynthetic
import HandzTestSupport
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The three report formats: what they hold, that they parse, and that no property value ever
/// reaches them.
@Suite struct ReportFormatTests {
    typealias Q = QAFixture

    /// A faulty stream whose screen names carry a sentinel the report must never show.
    static let faulty: QAReport = {
        var lines = Q.simulate(faults: [.wrongPreviousScreen, .doubleAppOpen, .uncataloguedEvent]).lines
        // Screen names (which the chain rule reads) all carry a sentinel, consistently.
        lines = lines.map { $0.replacing("\"home/demo\"", with: "\"zz_sentinel/value\"") }
        // An uncatalogued name that looks like an email, on a line of its own (a fresh event_id, so
        // it is not collapsed as a retry of line 0 and really reaches the allowlist rule).
        let firstID = lines[0].firstMatch(of: /"event_id":"([0-9a-f-]{36})"/)!.1
        lines.append(lines[0].replacing("\"event_name\":\"app_open\"", with: "\"event_name\":\"someone@example.com\"")
            .replacing(String(firstID), with: "0190a5e2-6c1d-7b3e-9f00-0000000e3a11"))
        return Q.run(lines)
    }()

    @Test("no format prints a property value or an uncatalogued name")
    func noValues() {
        #expect(Self.faulty.failed)
        for format in QAReport.Format.allCases {
            let text = Self.faulty.rendered(format, limit: 10_000)
            #expect(!text.contains("zz_sentinel") && !text.contains("someone@example.com"), "\(format)")
            #expect(!text.contains("flow/builder") && !text.contains("inbox/list"), "\(format): a screen name leaked")
            #expect(text.contains("0190a5e2-6c1d-7b3e-9f00-0000000e3a11") && text.contains("(uncatalogued)"), "\(format): the uncatalogued event is reported by id")
        }
    }

    @Test("json lists every rule with its spec section, violations with install, session and events")
    func json() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Self.faulty.rendered(.json).utf8)) as? [String: Any])
        #expect(object["passed"] as? Bool == false)
        let rules = try #require(object["rules"] as? [[String: Any]])
        #expect(rules.count == Q.ruleSet.rules.count)
        let once = try #require(rules.first { $0["id"] as? String == "cold_start.app_open_once" })
        #expect(once["spec"] as? String == "CH33 §8.2 Cold start" && once["passed"] as? Bool == false && once["violations_total"] as? Int == 1)
        let violation = try #require((once["violations"] as? [[String: Any]])?.first)
        #expect(violation["install_id"] is String && violation["session_id"] is String)
        let events = try #require(violation["events"] as? [[String: Any]])
        #expect(events.map { Set($0.keys) } == [["event_name", "event_time_utc", "event_id"], ["event_name", "event_time_utc", "event_id"]])
        #expect(((object["unchecked"] as? [[String: Any]])?.count ?? 0) == Q.ruleSet.unchecked.count)
    }

    @Test("junit is well-formed XML with one testcase per rule, failures for failed rules, skipped unchecked items")
    func junit() throws {
        let xml = Self.faulty.rendered(.junit)
        final class Collector: NSObject, XMLParserDelegate {
            var testcases: [String] = [], failures = 0, skipped = 0
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
                if name == "testcase" { testcases.append(attributes["name"] ?? "") }
                if name == "failure" { failures += 1 }
                if name == "skipped" { skipped += 1 }
            }
        }
        let parser = XMLParser(data: Data(xml.utf8))
        let collector = Collector()
        parser.delegate = collector
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(Array(collector.testcases.prefix(Q.ruleSet.rules.count)) == Q.ruleSet.rules.map(\.id))
        #expect(collector.failures == Self.faulty.failedRules.count)
        #expect(collector.skipped == Q.ruleSet.unchecked.count)
    }

    @Test("XML escaping: markup characters become entities, characters XML cannot carry become U+FFFD")
    func xmlEscaping() {
        #expect(MarkupText.escaped("a<b>&\"c'\u{01}\td\r") == "a&lt;b&gt;&amp;&quot;c&apos;\u{FFFD}\td&#13;")
    }

    @Test("text names each rule PASS or FAIL with its section, and ends with the summary")
    func text() {
        let lines = Self.faulty.rendered(.text).split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("FAIL cold_start.app_open_once (CH33 §8.2 Cold start): 1 violation(s)") })
        #expect(lines.contains { $0.hasPrefix("PASS practice.session_ends (CH33 §8.2 Practice)") })
        #expect(lines.last?.hasPrefix("qa: FAILED — 24 rules, 3 failed;") == true)
    }
}

import HandzAnalyticsCore

/// The three report formats of `handz-analytics qa`. Each prints rule ids, spec sections,
/// install/session ids, event names, times and event ids — never a property value (CH33 §1).
extension QAReport {
    public enum Format: String, Sendable, CaseIterable {
        case text, json, junit
    }

    /// `limit`: violations shown per rule (the counts are always complete).
    public func rendered(_ format: Format, limit: Int = 100) -> String {
        switch format {
        case .text: text(limit: limit)
        case .json: json(limit: limit)
        case .junit: junit(limit: limit)
        }
    }

    static func time(_ milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        return TimestampFormat.format(seconds: seconds, nanoseconds: Int32((milliseconds - seconds * 1000) * 1_000_000))
    }

    var summary: String {
        "\(results.count) rules, \(failedRules.count) failed; \(events) events (\(duplicates) retried lines collapsed), \(quarantined) quarantined, \(inputProblems.count) unreadable line(s)"
    }

    /// One violation as indented lines (text and JUnit bodies).
    static func lines(_ violation: QAViolation) -> [String] {
        var where_: [String] = []
        if let install = violation.installID { where_.append("install \(install)") }
        if let session = violation.sessionID { where_.append("session \(session)") }
        var out = ["  " + (where_.isEmpty ? "" : where_.joined(separator: " ") + ": ") + violation.message]
        for event in violation.events {
            out.append("    \(event.name) at \(time(event.timeMs))" + (event.eventID.map { " id \($0)" } ?? " (quarantined: receive time, no id)"))
        }
        if violation.omittedEvents > 0 { out.append("    … and \(violation.omittedEvents) more event(s)") }
        return out
    }

    func text(limit: Int) -> String {
        var out: [String] = []
        for result in results {
            let head = "\(result.rule.id) (\(result.rule.spec))"
            guard !result.passed else {
                out.append("PASS \(head): \(result.checked) checked")
                continue
            }
            out.append("FAIL \(head): \(result.violations.count) violation(s) — \(result.rule.title)")
            for violation in result.violations.prefix(limit) { out += Self.lines(violation) }
            if result.violations.count > limit { out.append("  … and \(result.violations.count - limit) more violation(s)") }
        }
        for problem in inputProblems.prefix(limit) { out.append("UNREADABLE line \(problem.line): \(problem.reason)") }
        if inputProblems.count > limit { out.append("  … and \(inputProblems.count - limit) more unreadable line(s)") }
        for item in unchecked { out.append("NOT CHECKED (\(item.spec)) \(item.item): \(item.why)") }
        out.append((failed ? "qa: FAILED — " : "qa: passed — ") + summary)
        return out.joined(separator: "\n")
    }

    func json(limit: Int) -> String {
        var out = "{\"passed\":\(!failed),\"events\":\(events),\"duplicates\":\(duplicates),\"quarantined\":\(quarantined),\"rules\":["
        for (index, result) in results.enumerated() {
            if index > 0 { out += "," }
            out += "{\"id\":\(q(result.rule.id)),\"spec\":\(q(result.rule.spec)),\"kind\":\(q(result.rule.kind.name)),\"title\":\(q(result.rule.title))"
            out += ",\"passed\":\(result.passed),\"checked\":\(result.checked),\"violations_total\":\(result.violations.count),\"violations\":["
            for (number, violation) in result.violations.prefix(limit).enumerated() {
                if number > 0 { out += "," }
                out += "{\"message\":\(q(violation.message)),\"install_id\":\(q(violation.installID)),\"session_id\":\(q(violation.sessionID)),\"events\":["
                out += violation.events.map { "{\"event_name\":\(q($0.name)),\"event_time_utc\":\(q(Self.time($0.timeMs))),\"event_id\":\(q($0.eventID))}" }.joined(separator: ",")
                out += "],\"omitted_events\":\(violation.omittedEvents)}"
            }
            out += "]}"
        }
        out += "],\"unreadable_lines\":[" + inputProblems.prefix(limit).map { "{\"line\":\($0.line),\"reason\":\(q($0.reason))}" }.joined(separator: ",")
        out += "],\"unreadable_total\":\(inputProblems.count),\"unchecked\":["
        out += unchecked.map { "{\"spec\":\(q($0.spec)),\"item\":\(q($0.item)),\"why\":\(q($0.why))}" }.joined(separator: ",")
        return out + "]}"
    }

    func q(_ text: String?) -> String { text.map { JSONString.quoted($0) } ?? "null" }

    /// JUnit XML: one testcase per rule (a failure lists its violations), unchecked items as
    /// skipped testcases, unreadable input as one more failing testcase — what Xcode Cloud,
    /// Bitrise, Jenkins and GitHub test reporters read.
    func junit(limit: Int) -> String {
        let failures = failedRules.count + (inputProblems.isEmpty ? 0 : 1)
        let tests = results.count + unchecked.count + (inputProblems.isEmpty ? 0 : 1)
        var out = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                   "<testsuites name=\"handz-analytics qa\" tests=\"\(tests)\" failures=\"\(failures)\">",
                   "  <testsuite name=\"CH33 analytics QA\" tests=\"\(tests)\" failures=\"\(failures)\" skipped=\"\(unchecked.count)\">"]
        out.append("    <properties><property name=\"events\" value=\"\(events)\"/><property name=\"duplicates\" value=\"\(duplicates)\"/><property name=\"quarantined\" value=\"\(quarantined)\"/></properties>")
        for result in results {
            let group = result.rule.id.split(separator: ".").first.map(String.init) ?? result.rule.id
            out.append("    <testcase classname=\"\(xml("qa." + group))\" name=\"\(xml(result.rule.id))\">")
            if !result.passed {
                var body = ["\(result.rule.title) (\(result.rule.spec))"]
                for violation in result.violations.prefix(limit) { body += Self.lines(violation) }
                if result.violations.count > limit { body.append("… and \(result.violations.count - limit) more violation(s)") }
                out.append("      <failure type=\"\(xml(result.rule.kind.name))\" message=\"\(xml("\(result.violations.count) violation(s) of \(result.rule.spec)"))\">\(xml(body.joined(separator: "\n")))</failure>")
            }
            out.append("    </testcase>")
        }
        for item in unchecked {
            out.append("    <testcase classname=\"qa.unchecked\" name=\"\(xml("\(item.spec): \(item.item)"))\"><skipped message=\"\(xml(item.why))\"/></testcase>")
        }
        if !inputProblems.isEmpty {
            let body = inputProblems.prefix(limit).map { "line \($0.line): \($0.reason)" }.joined(separator: "\n")
            out.append("    <testcase classname=\"qa.input\" name=\"input.readable\"><failure type=\"unreadable\" message=\"\(inputProblems.count) unreadable line(s)\">\(xml(body))</failure></testcase>")
        }
        out += ["  </testsuite>", "</testsuites>"]
        return out.joined(separator: "\n")
    }

    func xml(_ text: String) -> String { MarkupText.escaped(text) }
}

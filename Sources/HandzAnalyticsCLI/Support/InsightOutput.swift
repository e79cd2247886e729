import Foundation
import HandzAnalyticsCore
import HandzQuery
import HandzSynthetic

// How `trend`, `retention` and `paths` print their reports (issue 35), beside `FunnelOutput` and
// `KPIOutput`.

/// Columns aligned two spaces apart: the first left-aligned (a label), the others right-aligned
/// (numbers).
func alignedTable(headers: [String], rows: [[String]]) -> String {
    let widths = headers.indices.map { column in ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0 }
    let pad = { (cells: [String]) in
        zip(cells, widths).enumerated().map { index, pair in
            index == 0 ? pair.0.padding(toLength: pair.1, withPad: " ", startingAt: 0) : String(repeating: " ", count: pair.1 - pair.0.count) + pair.0
        }.joined(separator: "  ")
    }
    return ([pad(headers)] + rows.map(pad)).joined(separator: "\n")
}

/// Renders a trend: JSON (one object), CSV (one row per line and period, `total` last), or a table
/// (a row per period, a column per line).
enum TrendOutput {
    static func render(_ report: TrendReport, as format: OutputFormat) -> String {
        switch format {
        case .json: json(report)
        case .csv: csv(report)
        case .table: table(report)
        }
    }

    /// A line's breakdown value as printed: the value, "(not set)" or "(other)"; nil without a breakdown.
    static func valueText(_ line: TrendReport.Line, _ report: TrendReport) -> String? {
        guard report.query.breakdown != nil else { return nil }
        return line.isOther ? "(other)" : line.value ?? "(not set)"
    }

    static func json(_ report: TrendReport) -> String {
        var json = JSONText()
        json.beginObject()
        json.key("series")
        json.beginArray()
        for match in report.query.series { json.string(TrendQuery.text([match])) }
        json.endArray()
        json.field("measure", report.query.measure.rawValue)
        json.field("interval", report.query.interval.rawValue)
        json.field("from", isoTime(report.query.fromMs))
        json.field("to", isoTime(report.query.toMs))
        if let breakdown = report.query.breakdown { json.field("breakdown", breakdown) }
        json.key("periods")
        json.beginArray()
        for start in report.periodStarts { json.string(isoTime(start)) }
        json.endArray()
        json.key("lines")
        json.beginArray()
        for line in report.lines {
            json.beginObject()
            json.field("series", line.series)
            json.field("label", line.label)
            if report.query.breakdown != nil {
                json.key("value")
                if let value = line.value { json.string(value) } else { json.null() }
                json.field("other", line.isOther)
            }
            json.key("counts")
            json.beginArray()
            for count in line.counts { json.integer(count) }
            json.endArray()
            json.field("total", line.total)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.text
    }

    static func csv(_ report: TrendReport) -> String {
        var rows = ["series,label,value,period,count"]
        for line in report.lines {
            let prefix = "\(line.series),\(csvField(line.label)),\(csvField(valueText(line, report) ?? ""))"
            for (start, count) in zip(report.periodStarts, line.counts) { rows.append("\(prefix),\(isoTime(start)),\(count)") }
            rows.append("\(prefix),total,\(line.total)")
        }
        return rows.joined(separator: "\n")
    }

    static func csvField(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) ? "\"" + text.replacing("\"", with: "\"\"") + "\"" : text
    }

    static func table(_ report: TrendReport) -> String {
        let headers = ["period"] + report.lines.map { line in [line.label, valueText(line, report)].compactMap { $0 }.joined(separator: " · ") }
        var rows = zip(report.periodStarts.indices, report.periodStarts).map { index, start in
            [String(isoTime(start).prefix(10))] + report.lines.map { String($0.counts[index]) }
        }
        rows.append(["total"] + report.lines.map { String($0.total) })
        return alignedTable(headers: headers, rows: rows)
    }
}

/// Renders a retention matrix: JSON (the cohorts and the overall curve, counts per period), CSV
/// (a row per cohort and period), or a table of rates (a row per cohort, the curve last).
enum RetentionOutput {
    static func render(_ report: RetentionReport, as format: OutputFormat, catalog: Catalog) -> String {
        switch format {
        case .json: json(report, catalog: catalog)
        case .csv: csv(report)
        case .table: table(report)
        }
    }

    static func json(_ report: RetentionReport, catalog: Catalog) -> String {
        var json = JSONText()
        json.beginObject()
        json.field("from", isoTime(report.query.fromMs))
        json.field("to", isoTime(report.query.toMs))
        json.field("interval", report.query.interval.rawValue)
        json.field("returning", RetentionQuery.text(report.query.returning, catalog: catalog))
        json.field("actor", report.query.actor.rawValue)
        func cohort(_ cohort: RetentionReport.Cohort) {
            json.beginObject()
            json.field("start", isoTime(cohort.start))
            json.field("actors", cohort.actors)
            json.key("returned")
            json.beginArray()
            for count in cohort.returned { json.integer(count) }
            json.endArray()
            json.key("eligible")
            json.beginArray()
            for count in cohort.eligible { json.integer(count) }
            json.endArray()
            json.endObject()
        }
        json.key("cohorts")
        json.beginArray()
        for entry in report.cohorts { cohort(entry) }
        json.endArray()
        json.key("overall")
        cohort(report.overall)
        json.endObject()
        return json.text
    }

    static func csv(_ report: RetentionReport) -> String {
        var rows = ["cohort,actors,period,returned,eligible"]
        for (name, cohort) in report.cohorts.map({ (isoTime($0.start), $0) }) + [("all", report.overall)] {
            for period in cohort.returned.indices {
                rows.append("\(name),\(cohort.actors),\(period),\(cohort.returned[period]),\(cohort.eligible[period])")
            }
        }
        return rows.joined(separator: "\n")
    }

    static func table(_ report: RetentionReport) -> String {
        let unit = report.query.interval == .day ? "D" : "W"
        let headers = ["cohort", "actors"] + report.overall.returned.indices.map { "\(unit)\($0)" }
        var rows = report.cohorts.map { cohort in
            [String(isoTime(cohort.start).prefix(10)), String(cohort.actors)] + cohort.returned.indices.map { percent(cohort.rate($0)) }
        }
        rows.append(["all", String(report.overall.actors)] + report.overall.returned.indices.map { percent(report.overall.rate($0)) })
        return alignedTable(headers: headers, rows: rows)
    }
}

/// Renders paths: JSON (every distinct path with its sessions), CSV (the same, a column per step),
/// or a table of the paths, most sessions first.
enum PathOutput {
    static func render(_ report: PathReport, as format: OutputFormat) -> String {
        switch format {
        case .json:
            var json = JSONText()
            json.beginObject()
            json.field("direction", report.query.direction.rawValue)
            json.field("depth", report.query.depth)
            json.field("from", isoTime(report.query.fromMs))
            json.field("to", isoTime(report.query.toMs))
            json.field("sessions", report.sessions)
            json.key("paths")
            json.beginArray()
            for path in report.paths {
                json.beginObject()
                json.key("steps")
                json.beginArray()
                for step in path.steps { if let step { json.string(step) } else { json.null() } }
                json.endArray()
                json.field("sessions", path.sessions)
                json.endObject()
            }
            json.endArray()
            json.endObject()
            return json.text
        case .csv:
            let header = (1...report.query.depth).map { "step\($0)" }.joined(separator: ",") + ",sessions"
            return ([header] + report.paths.map { $0.steps.map { $0 ?? "" }.joined(separator: ",") + ",\($0.sessions)" }).joined(separator: "\n")
        case .table:
            let ended = report.query.direction == .next ? "(session ended)" : "(session started)"
            return report.paths.map { path in
                String(repeating: " ", count: max(0, 8 - String(path.sessions).count)) + String(path.sessions) + "  " + path.steps.map { $0 ?? ended }.joined(separator: " → ")
            }.joined(separator: "\n")
        }
    }
}

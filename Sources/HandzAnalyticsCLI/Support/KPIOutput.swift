import HandzQuery
import HandzSynthetic

/// Renders KPI reports: JSON (one object, or one per line with --all), CSV, or a table.
enum KPIOutput {
    static func render(_ reports: [KPIReport], as format: OutputFormat) -> String {
        switch format {
        case .json: reports.map(json).joined(separator: "\n")
        case .csv: (["kpi,value,numerator,denominator,left_out"] + reports.map(csvRow)).joined(separator: "\n")
        case .table: table(reports)
        }
    }

    static func json(_ report: KPIReport) -> String {
        var json = JSONText()
        json.beginObject()
        json.field("kpi", report.query.kpi.id)
        json.field("from", isoTime(report.query.fromMs))
        json.field("to", isoTime(report.query.toMs))
        json.field("actor", report.query.actor.rawValue)
        json.field("measure", report.query.kpi.measure.rawValue)
        if let unit = report.query.kpi.unit { json.field("unit", unit) }
        json.key("value")
        if case .median(let milliseconds?, _) = report.rows {
            json.raw(decimalSeconds(milliseconds))
        } else if let value = report.value {
            json.double(value)
        } else {
            json.null()
        }
        json.key("numerator")
        if let numerator = report.numerator { json.integer(numerator) } else { json.null() }
        json.key("denominator")
        if let denominator = report.denominator { json.integer(denominator) } else { json.null() }
        if let leftOut = report.leftOut { json.field("left_out", leftOut) }
        if case .median(let milliseconds, _) = report.rows {
            json.key("median_ms")
            if let milliseconds { json.integer(milliseconds) } else { json.null() }
        }
        if case .distribution(let buckets) = report.rows {
            json.key("distribution")
            json.beginArray()
            for bucket in buckets {
                json.beginObject()
                json.key("value")
                if let value = bucket.value { json.integer(value) } else { json.null() }
                json.field("count", bucket.count)
                json.endObject()
            }
            json.endArray()
        }
        json.endObject()
        return json.text
    }

    static func formattedValue(_ report: KPIReport) -> String {
        switch report.rows {
        case .median(let milliseconds, _): milliseconds.map { decimalSeconds($0) + " s" } ?? "–"
        case .ratio where report.query.kpi.divisor == 1 && report.query.kpi.unit == nil && isShare(report): percent(report.value)
        default: report.value.map { String(format2($0)) + (report.query.kpi.unit.map { " " + $0 } ?? "") } ?? "–"
        }
    }

    /// Shares print as percentages; counts per actor as plain numbers.
    static func isShare(_ report: KPIReport) -> Bool {
        report.query.kpi.measure != .eventsPerActive && report.query.kpi.measure != .weeklyDistinctPerActive
    }

    static func format2(_ value: Double) -> String {
        let hundredths = Int64((value * 100).rounded())
        let fraction = String(hundredths % 100)
        return "\(hundredths / 100)." + (fraction.count < 2 ? "0" + fraction : fraction)
    }

    static func csvRow(_ report: KPIReport) -> String {
        [report.query.kpi.id, report.value.map { String($0) } ?? "", report.numerator.map(String.init) ?? "",
         report.denominator.map(String.init) ?? "", report.leftOut.map(String.init) ?? ""].joined(separator: ",")
    }

    static func table(_ reports: [KPIReport]) -> String {
        var rows = [["kpi", "value", "numerator", "denominator", "left out"]]
        for report in reports {
            rows.append([report.query.kpi.id, formattedValue(report), report.numerator.map(String.init) ?? "–", report.denominator.map(String.init) ?? "–",
                         report.leftOut.map(String.init) ?? "–"])
        }
        var out = TextTable.render(rows)
        for report in reports {
            if case .distribution(let buckets) = report.rows {
                out += "\n\(report.query.kpi.id)\n" + TextTable.render([["value", "count"]] + buckets.map { [$0.value.map(String.init) ?? "(null)", String($0.count)] })
            }
        }
        return out
    }
}

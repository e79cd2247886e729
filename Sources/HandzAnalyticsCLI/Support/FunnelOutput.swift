import HandzAnalyticsCore
import HandzQuery
import HandzSynthetic

/// Renders a ``FunnelReport`` as the HandzQuery docs ("Analyst's guide") document it: one JSON object, a CSV with one row per
/// (bucket, step), or a table for people. Only counts, ratios, durations and — with a breakdown —
/// closed-set catalog values are printed.
enum FunnelOutput {
    /// `notes`: what some catalog versions in the data could not send
    /// (``HandzCatalogReleases/CatalogAvailability``), in the table and the JSON (`notes`); CSV
    /// holds rows only.
    static func render(_ report: FunnelReport, as format: OutputFormat, notes: [String] = []) -> String {
        switch format {
        case .json: json(report, notes: notes)
        case .csv: csv(report)
        case .table: table(report) + notes.map { "note: \($0)\n" }.joined()
        }
    }

    static func json(_ report: FunnelReport, notes: [String] = []) -> String {
        var json = JSONText()
        json.beginObject()
        json.field("funnel", report.query.funnel.id)
        json.field("from", isoTime(report.query.fromMs))
        json.field("to", isoTime(report.query.toMs))
        json.key("window_seconds")
        json.raw(decimalSeconds(report.query.windowMs))
        json.field("actor", report.query.actor.rawValue)
        json.field("order", report.query.funnel.order.rawValue)
        if !report.query.funnel.exclusions.isEmpty {
            json.key("exclusions")
            json.beginArray()
            for exclusion in report.query.funnel.exclusions {
                json.beginObject()
                json.key("events")
                json.beginArray()
                for event in exclusion.events { json.string(event) }
                json.endArray()
                json.field("from_step", exclusion.fromStep)
                json.field("to_step", exclusion.toStep)
                json.endObject()
            }
            json.endArray()
        }
        json.key("steps")
        steps(report.steps, &json)
        success(report.success, &json)
        if report.query.byEntryDay {
            // Conversion over time: one funnel per UTC day of entry.
            json.key("by_entry_day")
            json.beginArray()
            for day in report.entryDays {
                json.beginObject()
                json.field("day", String(isoTime(day.dayMs).prefix(10)))
                json.field("entered", day.entered)
                json.field("completed", day.completed)
                json.key("conversion")
                if day.entered > 0 { json.double(Double(day.completed) / Double(day.entered)) } else { json.null() }
                json.key("steps")
                steps(day.steps, &json)
                success(day.success, &json)
                json.endObject()
            }
            json.endArray()
        } else if let buckets = report.breakdown {
            json.field("breakdown_property", report.query.breakdown ?? "")
            json.key("breakdown")
            json.beginArray()
            for bucket in buckets {
                json.beginObject()
                json.key("value")
                if let value = bucket.value { json.string(value) } else { json.null() }
                json.key("steps")
                steps(bucket.steps, &json)
                success(bucket.success, &json)
                json.endObject()
            }
            json.endArray()
        }
        if !notes.isEmpty {
            json.key("notes")
            json.beginArray()
            for note in notes { json.string(note) }
            json.endArray()
        }
        json.endObject()
        return json.text
    }

    static func steps(_ steps: [FunnelStepResult], _ json: inout JSONText) {
        json.beginArray()
        for step in steps { self.step(step, &json) }
        json.endArray()
    }

    /// `"success": {…}` — the success row, shaped like a step (`index` n + 1, `events` the
    /// success events; `conversion_from_previous` and the median are from the step it follows).
    static func success(_ success: FunnelStepResult?, _ json: inout JSONText) {
        guard let success else { return }
        json.key("success")
        step(success, &json)
    }

    static func step(_ step: FunnelStepResult, _ json: inout JSONText) {
        json.beginObject()
        json.field("index", step.index)
        json.key("events")
        json.beginArray()
        for event in step.events { json.string(event) }
        json.endArray()
        json.field("actors", step.actors)
        if let links = step.links { json.field("links", links) }
        json.key("conversion_from_start")
        if let value = step.conversionFromStart { json.double(value) } else { json.null() }
        json.key("conversion_from_previous")
        if let value = step.conversionFromPrevious { json.double(value) } else { json.null() }
        json.key("median_seconds_from_previous")
        if let value = step.medianMsFromPrevious { json.raw(decimalSeconds(value)) } else { json.null() }
        json.endObject()
    }

    static func csv(_ report: FunnelReport) -> String {
        var lines = ["breakdown,step,events,actors,links,conversion_from_start,conversion_from_previous,median_seconds_from_previous"]
        func add(_ bucket: String, _ steps: [FunnelStepResult], _ success: FunnelStepResult?) {
            for step in steps + (success.map { [$0] } ?? []) {
                let label = step.index > report.query.funnel.steps.count ? "success" : String(step.index)
                lines.append([bucket, label, step.events.joined(separator: "|"), String(step.actors), step.links.map { String($0) } ?? "",
                              step.conversionFromStart.map { String($0) } ?? "", step.conversionFromPrevious.map { String($0) } ?? "",
                              step.medianMsFromPrevious.map(decimalSeconds) ?? ""].joined(separator: ","))
            }
        }
        add("", report.steps, report.success)
        if report.query.byEntryDay {
            for day in report.entryDays { add(String(isoTime(day.dayMs).prefix(10)), day.steps, day.success) }
        } else {
            for bucket in report.breakdown ?? [] { add(bucket.value ?? "(null)", bucket.steps, bucket.success) }
        }
        return lines.joined(separator: "\n")
    }

    static func table(_ report: FunnelReport) -> String {
        let query = report.query
        var out = "\(query.funnel.id) — \(query.funnel.title)\n"
        out += "\(isoTime(query.fromMs)) … \(isoTime(query.toMs)), window \(decimalSeconds(query.windowMs)) s, actor \(query.actor.rawValue)\n"
        if let handoff = query.funnel.handoffIndex {
            out += "steps 1–\(handoff) count senders; steps \(handoff + 1)+ and success count receivers (one per link and receiving actor)\n"
        }
        if query.funnel.order != .sequential { out += "order: \(query.funnel.order.rawValue)\n" }
        for exclusion in query.funnel.exclusions {
            out += "excluding \(exclusion.events.joined(separator: " | ")) between steps \(exclusion.fromStep) and \(exclusion.toStep)\n"
        }
        out += stepTable(report.steps, report.success, funnel: query.funnel)
        if query.byEntryDay {
            var rows = [["entry day", "entered", "completed", "conversion"]]
            for day in report.entryDays {
                rows.append([String(isoTime(day.dayMs).prefix(10)), String(day.entered), String(day.completed),
                             percent(day.entered > 0 ? Double(day.completed) / Double(day.entered) : nil)])
            }
            out += "\nconversion over time (one funnel per UTC day of entry)\n" + TextTable.render(rows)
        }
        for bucket in query.byEntryDay ? [] : report.breakdown ?? [] {
            out += "\n\(query.breakdown ?? "") = \(bucket.value ?? "(null)")\n" + stepTable(bucket.steps, bucket.success, funnel: query.funnel)
        }
        if let success = query.funnel.successCondition {
            out += "success: \(query.funnel.success) (after step \(success.afterStep))\n"
        }
        return out
    }

    static func stepTable(_ steps: [FunnelStepResult], _ success: FunnelStepResult?, funnel: FunnelDefinition) -> String {
        let linked = funnel.handoffIndex != nil
        var rows = [["step", "events", "actors"] + (linked ? ["links"] : []) + ["from start", "from previous", "median from previous (s)"]]
        for step in steps + (success.map { [$0] } ?? []) {
            let label = step.index > funnel.steps.count ? "success" : String(step.index)
            let events = step.events.isEmpty ? "(any event)" : step.events.joined(separator: " | ")
            rows.append([label, events, String(step.actors)] + (linked ? [step.links.map { String($0) } ?? "–"] : [])
                        + [percent(step.conversionFromStart), step.index == 1 ? "–" : percent(step.conversionFromPrevious),
                           step.medianMsFromPrevious.map(decimalSeconds) ?? "–"])
        }
        return TextTable.render(rows)
    }
}

/// Left-aligned text columns, two spaces apart.
enum TextTable {
    static func render(_ rows: [[String]]) -> String {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingSuffix()
        }.joined(separator: "\n") + "\n"
    }
}

extension String {
    fileprivate func trimmingSuffix() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}

import Foundation

/// The chart kinds of the report, each a function from plain numbers to an SVG string.
enum Charts {
    /// Funnel bars with the step-to-step drop-off (CH33 §7.2 "conversion with drop-off per step").
    /// `previous`: the previous period's counts per step (the served pages' comparison), drawn as
    /// faded bars beside the current ones.
    static func funnel(id: String, title: String, steps: [(label: String, actors: Int64)], unit: String, previous: [Int64]? = nil) -> String {
        var canvas = SVGCanvas(id: id, title: title, summary: "Funnel of \(steps.count) steps; bars are \(unit) reaching each step, labels between bars the drop-off from the previous step"
                               + (previous == nil ? "." : "; faded bars are the previous period of the same length."))
        let maximum = Double(max(steps.map(\.actors).max() ?? 0, previous?.max() ?? 0))
        canvas.valueAxis(maximum: maximum, unit: unit)
        canvas.categoryAxis(title: "Funnel step")
        let scale = SVGCanvas.ticks(maximum, integers: true).last!
        let slot = SVGCanvas.plotWidth / Double(max(steps.count, 1))
        for (index, step) in steps.enumerated() {
            let height = SVGCanvas.plotHeight * Double(step.actors) / scale
            let x = SVGCanvas.left + slot * Double(index) + slot * 0.18
            let y = SVGCanvas.top + SVGCanvas.plotHeight - height
            if let previous, previous.indices.contains(index) {
                let before = SVGCanvas.plotHeight * Double(previous[index]) / scale
                canvas.rect(x + slot * 0.40, SVGCanvas.top + SVGCanvas.plotHeight - before, slot * 0.30, before, fill: SVGCanvas.palette[0],
                            label: "\(step.label), previous period: \(Format.integer(previous[index])) \(unit)", opacity: 0.3)
            }
            canvas.rect(x, y, slot * (previous == nil ? 0.64 : 0.40), height, fill: SVGCanvas.palette[0], label: "\(step.label): \(Format.integer(step.actors)) \(unit)")
            canvas.text(x + slot * 0.32, y - 4, Format.integer(step.actors), size: 10)
            stepLabel(&canvas, index: index, label: step.label, center: SVGCanvas.left + slot * (Double(index) + 0.5), slot: slot)
            if index > 0 {
                let previous = steps[index - 1].actors
                let drop = previous > 0 ? 1 - Double(step.actors) / Double(previous) : nil
                canvas.text(x - slot * 0.18, SVGCanvas.top + 12, drop.map { "−" + Format.percent($0) } ?? "–", size: 10, extra: " fill=\"#c53030\"")
            }
        }
        return canvas.svg()
    }

    /// A funnel step's label under its slot: numbered, wrapped to at most three lines that each
    /// fit the slot (``SVGCanvas/wrap(_:width:size:maxLines:)``), so labels of neighbouring steps
    /// never run into each other however long the event names are (issue 37 §6).
    static func stepLabel(_ canvas: inout SVGCanvas, index: Int, label: String, center: Double, slot: Double) {
        let lines = SVGCanvas.wrap("\(index + 1). \(label)", width: slot * 0.92, size: stepLabelSize)
        canvas.textLines(center, SVGCanvas.top + SVGCanvas.plotHeight + 13, lines, size: stepLabelSize, lineHeight: 10, extra: " class=\"step-label\"")
    }

    static let stepLabelSize = 9

    /// A funnel broken down by a value (issue 37 §6): at each step one bar per value, side by
    /// side in the legend's colours — the values the query kept, then "(other)" in grey. The
    /// numbers are in the breakdown's tables below the chart.
    static func groupedFunnel(id: String, title: String, steps: [String], groups: [(name: String, actors: [Int64])], breakdown: String, unit: String) -> String {
        var canvas = SVGCanvas(id: id, title: title, summary: "Funnel of \(steps.count) steps broken down by \(breakdown): at each step one bar per value "
                               + "(\(groups.map(\.name).joined(separator: ", "))), height the \(unit) reaching the step.")
        let maximum = Double(groups.flatMap(\.actors).max() ?? 0)
        canvas.valueAxis(maximum: maximum, unit: unit)
        canvas.categoryAxis(title: "Funnel step, by \(breakdown)")
        let scale = SVGCanvas.ticks(maximum, integers: true).last!
        let slot = SVGCanvas.plotWidth / Double(max(steps.count, 1))
        let barWidth = slot * 0.8 / Double(max(groups.count, 1))
        for (index, label) in steps.enumerated() {
            for (number, group) in groups.enumerated() where group.actors.indices.contains(index) {
                let actors = group.actors[index]
                let height = SVGCanvas.plotHeight * Double(actors) / scale
                let share = group.actors.first.map { $0 > 0 ? " (\(Format.percent(Double(actors) / Double($0))) of step 1)" : "" } ?? ""
                canvas.rect(SVGCanvas.left + slot * Double(index) + slot * 0.1 + barWidth * Double(number), SVGCanvas.top + SVGCanvas.plotHeight - height,
                            barWidth * 0.9, height, fill: SVGCanvas.palette[number % SVGCanvas.palette.count],
                            label: "\(label) · \(breakdown) = \(group.name): \(Format.integer(actors)) \(unit)\(share)")
            }
            stepLabel(&canvas, index: index, label: label, center: SVGCanvas.left + slot * (Double(index) + 0.5), slot: slot)
        }
        for (number, group) in groups.enumerated() {
            let legendX = SVGCanvas.left + 8 + Double(number % 5) * 128
            let legendY = 12 + Double(number / 5) * 14
            canvas.rect(legendX, legendY - 8, 10, 10, fill: SVGCanvas.palette[number % SVGCanvas.palette.count])
            canvas.text(legendX + 14, legendY + 1, shorten(group.name, 17), anchor: "start", size: 10)
        }
        return canvas.svg()
    }

    /// Daily series: one polyline per series over the days of the range; nil points are gaps.
    /// `previous`: the previous period's series, day for day (the served pages' comparison), drawn
    /// faded and dashed in their series' colour.
    /// `periods`: labels of other periods than days (a trend's weeks or months) and the axis's
    /// title; nil for days from `fromMs`.
    static func timeSeries(id: String, title: String, fromMs: Int64, days: Int, series: [(name: String, values: [Double?])], unit: String, percent: Bool,
                           previous: [(name: String, values: [Double?])] = [], periods: (labels: [String], axis: String)? = nil) -> String {
        let over = periods.map { "Time series over \(days) periods (\($0.axis))" } ?? "Daily time series over \(days) days"
        var canvas = SVGCanvas(id: id, title: title, summary: "\(over) of \(series.map(\.name).joined(separator: ", ")), in \(unit)"
                               + (previous.isEmpty ? "." : "; faded dashed lines are the previous period of the same length, day for day."))
        let scaleFactor = percent ? 100.0 : 1.0
        let maximum = (series + previous).flatMap { $0.values.compactMap { $0 } }.max().map { $0 * scaleFactor } ?? 0
        canvas.valueAxis(maximum: maximum, unit: unit, percent: percent)
        canvas.categoryAxis(title: periods?.axis ?? "Day (UTC)")
        let scale = SVGCanvas.ticks(maximum, integers: !percent).last!
        let step = SVGCanvas.plotWidth / Double(max(days, 1))
        func x(_ day: Int) -> Double { SVGCanvas.left + step * (Double(day) + 0.5) }
        func y(_ value: Double) -> Double { SVGCanvas.top + SVGCanvas.plotHeight * (1 - value * scaleFactor / scale) }
        let labelEvery = max(1, Int(ceil(Double(days) / 7)))
        for day in stride(from: 0, to: days, by: labelEvery) {
            canvas.line(x(day), SVGCanvas.top + SVGCanvas.plotHeight, x(day), SVGCanvas.top + SVGCanvas.plotHeight + 4, stroke: "#4a5568")
            let label = periods.map { $0.labels[day] } ?? String(Format.date(fromMs + Int64(day) * 86_400_000).dropFirst(5))
            canvas.text(x(day), SVGCanvas.top + SVGCanvas.plotHeight + 16, label, size: 10)
        }
        for (index, entry) in previous.enumerated() {
            var segments: [[String]] = [[]]
            for (day, value) in entry.values.enumerated() {
                guard let value else { segments.append([]); continue }
                segments[segments.count - 1].append("\(SVGCanvas.number(x(day))),\(SVGCanvas.number(y(value)))")
            }
            for points in segments where points.count > 1 {
                canvas.add("<polyline fill=\"none\" stroke=\"\(SVGCanvas.palette[index % SVGCanvas.palette.count])\" stroke-opacity=\"0.35\" stroke-dasharray=\"4 3\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"><title>\(HTML.escape(entry.name)), previous period</title></polyline>")
            }
        }
        for (index, entry) in series.enumerated() {
            let color = SVGCanvas.palette[index % SVGCanvas.palette.count]
            var segments: [[String]] = [[]]
            for (day, value) in entry.values.enumerated() {
                guard let value else { segments.append([]); continue }
                segments[segments.count - 1].append("\(SVGCanvas.number(x(day))),\(SVGCanvas.number(y(value)))")
                if days <= 62 { canvas.add("<circle cx=\"\(SVGCanvas.number(x(day)))\" cy=\"\(SVGCanvas.number(y(value)))\" r=\"2.5\" fill=\"\(color)\"/>") }
            }
            for points in segments where points.count > 1 {
                canvas.add("<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>")
            }
            let legendX = SVGCanvas.left + 8 + Double(index % 3) * 210
            let legendY = 12 + Double(index / 3) * 14
            canvas.rect(legendX, legendY - 8, 10, 10, fill: color)
            canvas.text(legendX + 14, legendY + 1, shorten(entry.name, 30), anchor: "start", size: 10)
        }
        return canvas.svg()
    }

    /// Horizontal bars, largest first (top-N tables, breakdowns, rates side by side).
    static func bars(id: String, title: String, rows: [(label: String, value: Double, text: String)], unit: String, percent: Bool) -> String {
        var canvas = SVGCanvas(id: id, title: title, summary: "Bar chart of \(rows.count) rows in \(unit).")
        let factor = percent ? 100.0 : 1.0
        let maximum = percent ? max(100, (rows.map(\.value).max() ?? 0) * factor) : (rows.map(\.value).max() ?? 0)
        let scale = SVGCanvas.ticks(maximum, integers: !percent).last!
        let labelWidth = 230.0, top = 12.0
        let plotLeft = labelWidth + 10, plotWidth = SVGCanvas.width - plotLeft - 70
        let rowHeight = min(26, (SVGCanvas.plotHeight + 30) / Double(max(rows.count, 1)))
        canvas.height = min(SVGCanvas.height, top + rowHeight * Double(rows.count) + 44)
        for tick in SVGCanvas.ticks(maximum, integers: !percent) {
            let x = plotLeft + plotWidth * tick / scale
            canvas.line(x, top, x, top + rowHeight * Double(rows.count), stroke: "#e2e8f0")
            canvas.text(x, top + rowHeight * Double(rows.count) + 14, percent ? Format.axis(tick) + "%" : Format.axis(tick), size: 10)
        }
        canvas.text(plotLeft + plotWidth / 2, canvas.height - 6, unit, size: 11)
        for (index, row) in rows.enumerated() {
            let y = top + rowHeight * Double(index)
            let width = plotWidth * row.value * factor / scale
            canvas.text(labelWidth, y + rowHeight * 0.65, shorten(row.label, 38), anchor: "end", size: 10)
            canvas.rect(plotLeft, y + rowHeight * 0.15, width, rowHeight * 0.7, fill: SVGCanvas.palette[index % 2 == 0 ? 0 : 6], label: "\(row.label): \(row.text)")
            canvas.text(plotLeft + width + 4, y + rowHeight * 0.65, row.text, anchor: "start", size: 10)
        }
        return canvas.svg()
    }

    /// Vertical bars over value buckets, with dashed markers at the quantiles.
    static func histogram(id: String, title: String, buckets: [(label: String, count: Int64)], markers: [(label: String, position: Double)], valueTitle: String, unit: String) -> String {
        var canvas = SVGCanvas(id: id, title: title, summary: "Histogram of \(valueTitle) over \(buckets.count) buckets; bar height is the count of \(unit).")
        let maximum = Double(buckets.map(\.count).max() ?? 0)
        canvas.valueAxis(maximum: maximum, unit: unit)
        canvas.categoryAxis(title: valueTitle)
        let scale = SVGCanvas.ticks(maximum, integers: true).last!
        let slot = SVGCanvas.plotWidth / Double(max(buckets.count, 1))
        let labelEvery = max(1, Int(ceil(Double(buckets.count) / 10)))
        for (index, bucket) in buckets.enumerated() {
            let height = SVGCanvas.plotHeight * Double(bucket.count) / scale
            let x = SVGCanvas.left + slot * Double(index)
            canvas.rect(x + 1, SVGCanvas.top + SVGCanvas.plotHeight - height, slot - 2, height, fill: SVGCanvas.palette[2], label: "\(bucket.label): \(Format.integer(bucket.count))")
            if index % labelEvery == 0 { canvas.text(x + slot / 2, SVGCanvas.top + SVGCanvas.plotHeight + 14, shorten(bucket.label, 12), size: 9) }
        }
        for (index, marker) in markers.enumerated() {
            let x = SVGCanvas.left + SVGCanvas.plotWidth * min(max(marker.position, 0), 1)
            canvas.line(x, SVGCanvas.top, x, SVGCanvas.top + SVGCanvas.plotHeight, stroke: "#c53030", width: 1.5, dash: true)
            canvas.text(x + 3, SVGCanvas.top + 10 + Double(index) * 12, marker.label, anchor: "start", size: 10, extra: " fill=\"#c53030\"")
        }
        return canvas.svg()
    }

    /// A single figure (a median): the value large, what it is made of below.
    static func figure(id: String, title: String, value: String, caption: String) -> String {
        var canvas = SVGCanvas(id: id, title: title, summary: "\(title): \(value). \(caption)")
        canvas.height = 150
        canvas.text(SVGCanvas.width / 2, 80, value, size: 44, extra: " font-weight=\"bold\" fill=\"#2b6cb0\"")
        canvas.text(SVGCanvas.width / 2, 118, caption, size: 13)
        return canvas.svg()
    }

    static func shorten(_ text: String, _ length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }
}

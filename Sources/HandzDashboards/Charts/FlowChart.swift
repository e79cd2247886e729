/// The paths page's flow chart (issue 35 §4): a column per step, the anchor first; in each column
/// a box per event sized by its sessions (the ``maxBoxes`` largest, the rest as one "other events"
/// box), and between consecutive columns a band per pair of boxes, as tall as its sessions, stacked
/// along each box's side (a Sankey diagram). No script: the numbers are in the tables beside it.
enum FlowChart {
    static let maxBoxes = 6

    /// `columns[i]`: step i's (event, sessions), largest first (i = 0: the anchor);
    /// `links[i]`: (from, to, sessions) from step i to step i + 1. Events are names or nil for the
    /// session's end.
    static func svg(id: String, title: String, anchor: String, ended: String, columns: [[(event: String?, sessions: Int64)]],
                    links: [[(from: String?, to: String?, sessions: Int64)]]) -> String {
        var canvas = SVGCanvas(id: id, title: title, summary: "Flow of sessions from \(anchor) over \(columns.count - 1) steps; the tables list every path and every step's events.")
        let boxWidth = 104.0, top = 24.0, plot = 300.0
        canvas.height = top + plot + 16
        let gap = columns.count > 1 ? (SVGCanvas.width - 16 - boxWidth) / Double(columns.count - 1) : 0
        let total = Double(max(columns.first?.reduce(0) { $0 + $1.sessions } ?? 1, 1))
        let label = { (event: String?) in event ?? ended }
        // Each column's boxes: the largest, then "other events"; a box's place and scale by its key.
        var places: [[String: (y: Double, height: Double)]] = []
        var scales: [Double] = []
        for (step, column) in columns.enumerated() {
            var shown = Array(column.prefix(maxBoxes)).map { (key: label($0.event), sessions: $0.sessions) }
            let rest = column.dropFirst(maxBoxes).reduce(0) { $0 + $1.sessions }
            if rest > 0 { shown.append((key: "other events", sessions: rest)) }
            let scale = (plot - 6.0 * Double(max(shown.count - 1, 0))) / total
            var y = top
            var placed: [String: (Double, Double)] = [:]
            let x = 8 + gap * Double(step)
            canvas.text(x + boxWidth / 2, 14, step == 0 ? "anchor" : "step \(step)", size: 10)
            for (index, box) in shown.enumerated() {
                let height = max(1, scale * Double(box.sessions))
                placed[box.key] = (y, height)
                canvas.rect(x, y, boxWidth, height, fill: SVGCanvas.palette[min(index, SVGCanvas.palette.count - 1)], label: "\(box.key): \(box.sessions) sessions", opacity: 0.85)
                if height >= 11 { canvas.text(x + 4, y + min(height / 2 + 4, 12), Charts.shorten(box.key, 16), anchor: "start", size: 9, extra: " fill=\"#ffffff\"") }
                y += height + 6
            }
            places.append(placed)
            scales.append(scale)
        }
        // The bands, stacked down each box's right (left) side in the order of the links.
        for (step, pairs) in links.enumerated() where step + 1 < places.count {
            var outOffset: [String: Double] = [:], inOffset: [String: Double] = [:]
            for pair in pairs {
                let fromKey = places[step][label(pair.from)] == nil ? "other events" : label(pair.from)
                let toKey = places[step + 1][label(pair.to)] == nil ? "other events" : label(pair.to)
                guard let from = places[step][fromKey], let to = places[step + 1][toKey] else { continue }
                let (outHeight, inHeight) = (scales[step] * Double(pair.sessions), scales[step + 1] * Double(pair.sessions))
                let y1 = from.y + outOffset[fromKey, default: 0], y2 = to.y + inOffset[toKey, default: 0]
                outOffset[fromKey, default: 0] += outHeight
                inOffset[toKey, default: 0] += inHeight
                let (x1, x2) = (8 + gap * Double(step) + boxWidth, 8 + gap * Double(step + 1))
                let points = [(x1, y1), (x2, y2), (x2, y2 + inHeight), (x1, y1 + outHeight)].map { "\(SVGCanvas.number($0.0)),\(SVGCanvas.number($0.1))" }
                canvas.add("<polygon points=\"\(points.joined(separator: " "))\" fill=\"#a0aec0\" fill-opacity=\"0.45\"><title>\(HTML.escape(label(pair.from))) → \(HTML.escape(label(pair.to))): \(pair.sessions) sessions</title></polygon>")
            }
        }
        return canvas.svg()
    }
}

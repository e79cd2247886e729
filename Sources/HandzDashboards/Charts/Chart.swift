import Foundation

/// Inline SVG charts (CH33 §7 "people read these as pictures"): no script, no external font or
/// fetch, every text escaped. Each chart carries a `<title>` and `<desc>` for screen readers;
/// the numbers themselves are in the data table beside it.
struct SVGCanvas {
    static let width = 720.0
    static let height = 280.0
    /// Plot area margins: left leaves room for value labels, top for the legend, bottom for the axis title.
    static let left = 78.0, right = 20.0, top = 40.0, bottom = 52.0
    static var plotWidth: Double { width - left - right }
    static var plotHeight: Double { height - top - bottom }
    static let palette = ["#2b6cb0", "#dd6b20", "#2f855a", "#b83280", "#6b46c1", "#c53030", "#2c7a7b", "#975a16"]

    var body = ""
    /// The drawing's height; charts whose content is shorter (a few bars) shrink it.
    var height = Self.height
    let id: String
    let title: String
    let summary: String

    init(id: String, title: String, summary: String) {
        self.id = id
        self.title = title
        self.summary = summary
    }

    mutating func add(_ element: String) { body += element + "\n" }

    func svg() -> String {
        let w = Int(Self.width), h = Int(height)
        return """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(w) \(h)" width="\(w)" height="\(h)" role="img" aria-labelledby="\(id)-title \(id)-desc" class="chart">
        <title id="\(id)-title">\(HTML.escape(title))</title>
        <desc id="\(id)-desc">\(HTML.escape(summary))</desc>
        \(body)</svg>
        """
    }

    static func number(_ value: Double) -> String { String(format: "%.1f", value) }

    mutating func text(_ x: Double, _ y: Double, _ content: String, anchor: String = "middle", size: Int = 11, extra: String = "") {
        add("<text x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" text-anchor=\"\(anchor)\" font-size=\"\(size)\"\(extra)>\(HTML.escape(content))</text>")
    }

    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String = "#cbd5e0", width: Double = 1, dash: Bool = false) {
        add("<line x1=\"\(Self.number(x1))\" y1=\"\(Self.number(y1))\" x2=\"\(Self.number(x2))\" y2=\"\(Self.number(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(Self.number(width))\"\(dash ? " stroke-dasharray=\"4 3\"" : "")/>")
    }

    mutating func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String, label: String? = nil, opacity: Double? = nil) {
        let tooltip = label.map { "<title>\(HTML.escape($0))</title>" } ?? ""
        let faded = opacity.map { " fill-opacity=\"\($0)\"" } ?? ""
        add("<rect x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(max(w, 0)))\" height=\"\(Self.number(max(h, 0)))\" fill=\"\(fill)\"\(faded)>\(tooltip)</rect>")
    }

    /// The value axis (left): grid lines, tick labels and the axis title (the unit).
    mutating func valueAxis(maximum: Double, unit: String, percent: Bool = false) {
        let ticks = Self.ticks(maximum, integers: !percent)
        for tick in ticks {
            let y = Self.top + Self.plotHeight * (1 - tick / ticks.last!)
            line(Self.left, y, Self.width - Self.right, y, stroke: "#e2e8f0")
            text(Self.left - 6, y + 4, percent ? Format.axis(tick) + "%" : Format.axis(tick), anchor: "end", size: 10)
        }
        line(Self.left, Self.top, Self.left, Self.top + Self.plotHeight, stroke: "#4a5568")
        add("<text transform=\"translate(14 \(Self.number(Self.top + Self.plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\" font-size=\"11\">\(HTML.escape(unit))</text>")
    }

    /// The category/time axis (bottom) title.
    mutating func categoryAxis(title: String) {
        line(Self.left, Self.top + Self.plotHeight, Self.width - Self.right, Self.top + Self.plotHeight, stroke: "#4a5568")
        text(Self.left + Self.plotWidth / 2, Self.height - 6, title, size: 11)
    }

    /// 0 … a round maximum ≥ `maximum`, in 4–5 steps of 1, 2, 2.5 or 5 × 10^k (whole steps
    /// for counts).
    static func ticks(_ maximum: Double, integers: Bool = false) -> [Double] {
        guard maximum > 0, maximum.isFinite else { return [0, 1] }
        let raw = maximum / 4
        let magnitude = pow(10, floor(log10(raw)))
        var step = [1, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        if integers { step = max(1, step.rounded(.up)) }
        let count = Int(ceil(maximum / step - 1e-9))
        return (0...max(count, 1)).map { Double($0) * step }
    }
}

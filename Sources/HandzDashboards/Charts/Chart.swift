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
    /// Eight colours for series and breakdown values, then grey: a breakdown keeps at most eight
    /// values and draws "(other)" ninth (``BreakdownLimit``).
    static let palette = ["#2b6cb0", "#dd6b20", "#2f855a", "#b83280", "#6b46c1", "#c53030", "#2c7a7b", "#975a16", "#718096"]

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

    /// Text on several lines (`<tspan>`s one under the other), centred on `x`; `y` is the first
    /// line's baseline.
    mutating func textLines(_ x: Double, _ y: Double, _ lines: [String], size: Int, lineHeight: Double, extra: String = "") {
        let spans = lines.enumerated().map { index, line in
            "<tspan x=\"\(Self.number(x))\" dy=\"\(index == 0 ? "0" : Self.number(lineHeight))\">\(HTML.escape(line))</tspan>"
        }.joined()
        add("<text x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" text-anchor=\"middle\" font-size=\"\(size)\"\(extra)>\(spans)</text>")
    }

    /// The widest a string of `count` characters can be drawn at `size` px, as the charts assume
    /// it: 0.62 em a character, above the mean width of the sans-serif fonts' letters, digits and
    /// underscores (about 0.5 em), so a label measured this way fits on screen.
    static func textWidth(_ count: Int, size: Int) -> Double { Double(count) * Double(size) * emPerCharacter }

    /// The width the charts assume for one character, in em (``textWidth(_:size:)``).
    static let emPerCharacter = 0.62

    /// `text` broken into at most `maxLines` lines that each fit `width` at `size` px
    /// (``textWidth(_:size:)``): at spaces and after `_`, `/` and `-`, a word longer than a line cut
    /// where it must, and the last line ending in `…` when the rest does not fit.
    static func wrap(_ text: String, width: Double, size: Int, maxLines: Int = 3) -> [String] {
        let perLine = max(2, Int(width / textWidth(1, size: size)))
        // The pieces between break opportunities, each with whether a space came before it.
        var pieces: [(text: String, spaceBefore: Bool)] = []
        var current = "", pendingSpace = false, currentSpaced = false
        for character in text {
            if character == " " {
                if !current.isEmpty { pieces.append((current, currentSpaced)); current = "" }
                pendingSpace = true
                continue
            }
            if current.isEmpty { currentSpaced = pendingSpace; pendingSpace = false }
            current.append(character)
            if "_/-".contains(character) { pieces.append((current, currentSpaced)); current = "" }
        }
        if !current.isEmpty { pieces.append((current, currentSpaced)) }

        var lines: [String] = []
        var line = ""
        var index = 0
        var truncated = false
        while index < pieces.count {
            let piece = pieces[index]
            let joined = line.isEmpty ? piece.text : line + (piece.spaceBefore ? " " : "") + piece.text
            if joined.count <= perLine {
                line = joined
                index += 1
                continue
            }
            if line.isEmpty {
                // A piece longer than a line: cut it where it must be.
                line = String(piece.text.prefix(perLine))
                pieces[index] = (String(piece.text.dropFirst(perLine)), false)
            }
            lines.append(line)
            line = ""
            if lines.count == maxLines { truncated = true; break }
        }
        if !line.isEmpty {
            if lines.count < maxLines { lines.append(line) } else { truncated = true }
        }
        if truncated, let last = lines.last {
            lines[lines.count - 1] = String(last.prefix(perLine - 1)) + "…"
        }
        return lines
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

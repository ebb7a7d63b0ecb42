import Foundation

/// One line of a chart: a name for the legend and its (x, y) points in data units.
struct ChartSeries {
    var name: String
    var points: [(x: Double, y: Double)]
    /// Drawn fainter and thinner (a baseline run behind the current one).
    var muted = false
}

/// An inline SVG line chart with axes, units, gridlines and a legend.
///
/// Colour is never the only signal: each series also has its own dash pattern and marker shape,
/// repeated in the legend, and every marker carries a `<title>` tooltip with its exact value.
/// Colours are the Okabe–Ito palette, which stays distinct for the common colour-vision deficiencies.
struct LineChart {
    var title: String
    var xLabel: String
    var yLabel: String
    var xKind: ChartScale.Kind = .linear
    var yKind: ChartScale.Kind = .linear
    var series: [ChartSeries]
    var width: Double = 600
    var height: Double = 270
    /// Formats a y value for tooltips ("12.3 ms").
    var yFormat: (Double) -> String = { Format.tick($0) }
    /// Formats an x value for tooltips ("t = 12 s").
    var xFormat: (Double) -> String = { "x = " + Format.tick($0) }
    /// What an empty chart says ("no errors recorded" reads better than a blank frame).
    var emptyMessage = "no data recorded"
    /// Whole-number x ticks only (run numbers).
    var integerX = false
    /// Vertical marks at x values (change points in a trend), each with a label shown on hover and above the plot.
    var marks: [(x: Double, label: String)] = []

    static let colours = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
    static let dashes = ["", "7 3", "2 3", "9 3 2 3", "1 2", "12 5"]
    static let markers = ["circle", "square", "triangle", "diamond", "cross", "bar"]

    func svg() -> String {
        let left = 62.0, right = 14.0, top = 12.0
        let legendRows = Double((series.count + 2) / 3)
        let bottom = 44.0 + legendRows * 18
        let plotW = width - left - right, plotH = height - top - bottom
        let xs = series.flatMap { $0.points.map(\.x) }, ys = series.flatMap { $0.points.map(\.y) }
        var s = "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" xmlns=\"http://www.w3.org/2000/svg\">"
        s += "<title>\(Format.html(title))</title>"
        guard !xs.isEmpty else {
            s += rect(left, top, plotW, plotH, "frame")
            s += "<text class=\"nodata\" x=\"\(f(left + plotW / 2))\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\">\(Format.html(emptyMessage))</text></svg>"
            return s
        }
        let xScale = ChartScale(kind: xKind, values: xs, pixelLow: left, pixelHigh: left + plotW, tickCount: 6, integerSteps: integerX)
        let yScale = ChartScale(kind: yKind, values: ys, pixelLow: top + plotH, pixelHigh: top, tickCount: 5,
                                includeZero: yKind == .linear)
        // Grid and ticks.
        for t in yScale.ticks {
            let y = yScale.tickPixel(t.value)
            s += "<line class=\"grid\" x1=\"\(f(left))\" y1=\"\(f(y))\" x2=\"\(f(left + plotW))\" y2=\"\(f(y))\"/>"
            s += "<text class=\"tick\" x=\"\(f(left - 6))\" y=\"\(f(y + 4))\" text-anchor=\"end\">\(Format.html(t.label))</text>"
        }
        for t in xScale.ticks {
            let x = xScale.tickPixel(t.value)
            s += "<line class=\"grid\" x1=\"\(f(x))\" y1=\"\(f(top))\" x2=\"\(f(x))\" y2=\"\(f(top + plotH))\"/>"
            s += "<text class=\"tick\" x=\"\(f(x))\" y=\"\(f(top + plotH + 16))\" text-anchor=\"middle\">\(Format.html(t.label))</text>"
        }
        s += rect(left, top, plotW, plotH, "frame")
        s += "<text class=\"axis\" x=\"\(f(left + plotW / 2))\" y=\"\(f(top + plotH + 34))\" text-anchor=\"middle\">\(Format.html(xLabel))</text>"
        s += "<text class=\"axis\" transform=\"translate(14 \(f(top + plotH / 2))) rotate(-90)\" text-anchor=\"middle\">\(Format.html(yLabel))</text>"

        for m in marks where m.x.isFinite {
            let x = xScale.pixel(m.x)
            s += "<g class=\"mark\"><title>\(Format.html(m.label))</title><line x1=\"\(f(x))\" y1=\"\(f(top))\" x2=\"\(f(x))\" "
                + "y2=\"\(f(top + plotH))\" stroke=\"#000\" stroke-width=\"1.4\" stroke-dasharray=\"4 3\"/>"
            s += "<text class=\"tick\" x=\"\(f(x + 3))\" y=\"\(f(top + 11))\">\(Format.html(m.label))</text></g>"
        }
        // Series: the line, then markers at up to ~24 evenly spread points.
        for (i, line) in series.enumerated() {
            let colour = Self.colours[i % Self.colours.count], dash = Self.dashes[i % Self.dashes.count]
            let pts = line.points.filter { $0.x.isFinite && $0.y.isFinite }
            guard !pts.isEmpty else { continue }
            let path = pts.map { "\(f(xScale.pixel($0.x))),\(f(yScale.pixel($0.y)))" }.joined(separator: " ")
            s += "<g class=\"series\(line.muted ? " muted" : "")\"><title>\(Format.html(line.name))</title>"
            s += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"\(line.muted ? "1.2" : "1.8")\""
                + (dash.isEmpty ? "" : " stroke-dasharray=\"\(dash)\"") + " points=\"\(path)\"/>"
            let every = Swift.max(1, pts.count / 24)
            for (k, p) in pts.enumerated() where k % every == (i * 3) % every || pts.count == 1 {
                s += marker(i, x: xScale.pixel(p.x), y: yScale.pixel(p.y), colour: colour,
                            tip: "\(line.name): \(yFormat(p.y)) at \(xFormat(p.x))")
            }
            s += "</g>"
        }
        // Legend under the x-axis label, three entries per row.
        for (i, line) in series.enumerated() {
            let col = Double(i % 3), row = Double(i / 3)
            let x = left + col * (plotW / 3), y = top + plotH + 52 + row * 18
            let colour = Self.colours[i % Self.colours.count], dash = Self.dashes[i % Self.dashes.count]
            s += "<g class=\"legend\"><line x1=\"\(f(x))\" y1=\"\(f(y - 4))\" x2=\"\(f(x + 26))\" y2=\"\(f(y - 4))\" stroke=\"\(colour)\" stroke-width=\"2\""
                + (dash.isEmpty ? "" : " stroke-dasharray=\"\(dash)\"") + "/>"
            s += marker(i, x: x + 13, y: y - 4, colour: colour, tip: nil)
            s += "<text x=\"\(f(x + 32))\" y=\"\(f(y))\">\(Format.html(line.name))</text></g>"
        }
        return s + "</svg>"
    }

    private func marker(_ i: Int, x: Double, y: Double, colour: String, tip: String?) -> String {
        let t = tip.map { "<title>\(Format.html($0))</title>" } ?? ""
        let attrs = "fill=\"\(colour)\" stroke=\"\(colour)\""
        switch Self.markers[i % Self.markers.count] {
        case "circle": return "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"3\" \(attrs)>\(t)</circle>"
        case "square": return "<rect x=\"\(f(x - 3))\" y=\"\(f(y - 3))\" width=\"6\" height=\"6\" \(attrs)>\(t)</rect>"
        case "triangle": return "<polygon points=\"\(f(x)),\(f(y - 4)) \(f(x + 4)),\(f(y + 3)) \(f(x - 4)),\(f(y + 3))\" \(attrs)>\(t)</polygon>"
        case "diamond": return "<polygon points=\"\(f(x)),\(f(y - 4)) \(f(x + 4)),\(f(y)) \(f(x)),\(f(y + 4)) \(f(x - 4)),\(f(y))\" \(attrs)>\(t)</polygon>"
        case "cross": return "<path d=\"M\(f(x - 3)) \(f(y - 3))L\(f(x + 3)) \(f(y + 3))M\(f(x - 3)) \(f(y + 3))L\(f(x + 3)) \(f(y - 3))\" stroke=\"\(colour)\" stroke-width=\"1.6\">\(t)</path>"
        default: return "<rect x=\"\(f(x - 1))\" y=\"\(f(y - 4))\" width=\"2\" height=\"8\" \(attrs)>\(t)</rect>"
        }
    }

    private func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ cls: String) -> String {
        "<rect class=\"\(cls)\" x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(w))\" height=\"\(f(h))\"/>"
    }

    /// Pixel coordinates with one decimal: enough for crisp lines, small files.
    private func f(_ v: Double) -> String { String(format: "%.1f", v) }
}

import Foundation

/// One step of a capacity search, as the capacity report draws it.
public struct CapacityPoint: Sendable {
    public var step: Int
    public var offered: Double
    public var achieved: Double
    public var verdict: String
    public var detail: String
    public var turnaround: (p50: Double, p99: Double, p99Min: Double, p99Max: Double)
    public var settlement: (p50: Double, p99: Double, p99Min: Double, p99Max: Double)
    /// Samples behind each: a step with none has no point on that chart and — in the table.
    public var turnaroundSamples: Int64
    public var settlementSamples: Int64

    public init(step: Int, offered: Double, achieved: Double, verdict: String, detail: String,
                turnaround: (Double, Double, Double, Double), settlement: (Double, Double, Double, Double),
                turnaroundSamples: Int64 = 1, settlementSamples: Int64 = 1) {
        self.turnaroundSamples = turnaroundSamples
        self.settlementSamples = settlementSamples
        self.step = step
        self.offered = offered
        self.achieved = achieved
        self.verdict = verdict
        self.detail = detail
        self.turnaround = turnaround
        self.settlement = settlement
    }
}

/// The `index.html` of `fleet capacity`: the answer, then offered load against achieved
/// throughput and the latencies per step (p50, p99 and the spread of the per-window p99), the knee
/// (the highest passing step) marked, and the steps as a table.
public enum CapacityPage {
    public static func html(title: String, lines: [String], points: [CapacityPoint], knee: Double?) -> String {
        var h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        h += "<title>Fleet capacity — \(Format.html(title))</title>\n<style>\n\(ReportStyle.css)</style>\n</head>\n<body>\n"
        h += "<header><h1>Capacity search — \(Format.html(title))</h1></header>\n<main>\n<section id=\"capacity\">\n<h2>Capacity</h2>\n<ul>"
        for l in lines { h += "<li>\(Format.html(l))</li>" }
        h += "</ul>\n<p class=\"hint\">One point per step, in order of offered load. The knee (highest passing step) is the vertical line. "
        h += "Whiskers: the lowest and highest per-window p99 of the step's measured windows.</p>\n<div class=\"charts\">"
        let pts = points.sorted { $0.offered < $1.offered }
        let maxRate = max(pts.map(\.offered).max() ?? 1, pts.map(\.achieved).max() ?? 1)
        var thr = [ChartSeries(name: "achieved journeys/s", points: pts.map { ($0.offered, $0.achieved) }),
                   ChartSeries(name: "offered = achieved", points: [(0, 0), (maxRate, maxRate)], muted: true)]
        if let k = knee { thr.append(ChartSeries(name: "knee", points: [(k, 0), (k, maxRate)])) }
        h += figure(LineChart(title: "Offered load against achieved throughput", xLabel: "offered (users arriving/s)",
                              yLabel: "achieved (journeys completed/s)", series: thr, xFormat: { "offered " + Format.tick($0) + "/s" }))
        for (name, pick, measured) in [("Assessment turnaround", { (p: CapacityPoint) in p.turnaround }, { (p: CapacityPoint) in p.turnaroundSamples > 0 }),
                                       ("Settlement", { (p: CapacityPoint) in p.settlement }, { (p: CapacityPoint) in p.settlementSamples > 0 })] {
            let pts = pts.filter(measured)
            var s = [ChartSeries(name: "p50", points: pts.map { ($0.offered, pick($0).p50) }),
                     ChartSeries(name: "p99", points: pts.map { ($0.offered, pick($0).p99) }),
                     ChartSeries(name: "p99 lowest window", points: pts.map { ($0.offered, pick($0).p99Min) }, muted: true),
                     ChartSeries(name: "p99 highest window", points: pts.map { ($0.offered, pick($0).p99Max) }, muted: true)]
            let top = pts.map { pick($0).p99Max }.max() ?? 1
            if let k = knee { s.append(ChartSeries(name: "knee", points: [(k, 0), (k, top)])) }
            h += figure(LineChart(title: "\(name) per step: p50, p99 (spread)", xLabel: "offered (users arriving/s)",
                                  yLabel: "latency (ms)", series: s, yFormat: { Format.duration(ms: $0) },
                                  xFormat: { "offered " + Format.tick($0) + "/s" }))
        }
        h += "</div>\n<table><thead><tr><th>step</th><th>offered /s</th><th>achieved /s</th><th>verdict</th>"
        h += "<th>turnaround p50 / p99 (ms)</th><th>settlement p50 / p99 (ms)</th></tr></thead><tbody>\n"
        for p in points {
            h += "<tr><td>\(p.step)</td><td>\(f(p.offered))</td><td>\(f(p.achieved))</td>"
            h += "<td>\(Format.html(p.verdict + (p.detail.isEmpty ? "" : ": " + p.detail)))</td>"
            let turnaround = p.turnaroundSamples > 0 ? "\(f(p.turnaround.p50)) / \(f(p.turnaround.p99))" : "—"
            let settlement = p.settlementSamples > 0 ? "\(f(p.settlement.p50)) / \(f(p.settlement.p99))" : "—"
            h += "<td>\(turnaround)</td><td>\(settlement)</td></tr>\n"
        }
        h += "</tbody></table>\n</section>\n</main>\n<footer>Generated by Fleet · data: <a href=\"capacity.csv\">capacity.csv</a></footer>\n"
        return h + "</body>\n</html>\n"
    }

    static func figure(_ chart: LineChart) -> String {
        "<figure><figcaption>\(Format.html(chart.title))</figcaption>\(chart.svg())</figure>"
    }

    static func f(_ v: Double) -> String { String(format: v >= 100 ? "%.0f" : "%.2f", v) }
}

import FleetMetrics

extension HTMLReport {
    /// Users arriving per minute of the run (from `user_start`, one sample per arrival), so that a
    /// compressed-day population run shows its peaks where the arrival curve put them. Runs
    /// shorter than five minutes are binned per 10 s instead, or the chart would be one point.
    func arrivalsSection() -> String {
        guard let (bins, binS) = Self.arrivals(results), !bins.isEmpty else { return "" }
        let unit = binS == 60 ? "minute" : "\(Int(binS)) s"
        var s = "<section id=\"arrivals\">\n<h2>Arrivals per \(unit)</h2>\n"
        s += "<p class=\"hint\">Users starting a visit in each \(unit) of the run (actual start). For a population "
        s += "run over a compressed day, minute m of the run is UTC hour m × compression / 60 of the population's day.</p>\n"
        let series = ChartSeries(name: "arrivals", points: bins.enumerated().map { (Double($0.offset) * binS / 60, Double($0.element)) })
        s += "<div class=\"charts\">" + figure(LineChart(title: "Users arriving per \(unit)", xLabel: "minute of the run",
                                                        yLabel: "users per \(unit)", series: [series],
                                                        xFormat: { "minute " + Format.tick($0) }))
        return s + "</div>\n</section>\n"
    }

    /// Arrivals per bin (a minute, or 10 s for short runs) from the `user_start` metric's windows.
    static func arrivals(_ r: RunResults) -> ([Int64], Double)? {
        guard let m = r.metric(.userStart), !m.windows.isEmpty, r.windowNanos > 0 else { return nil }
        let last = m.windows.map(\.index).max() ?? 0
        let runS = Double(last + 1) * Double(r.windowNanos) / 1e9
        let binS = runS >= 300 ? 60.0 : 10.0
        let perBin = max(1, Int(binS * 1e9 / Double(r.windowNanos)))
        var out = [Int64](repeating: 0, count: last / perBin + 1)
        for w in m.windows { out[w.index / perBin] += w.corrected.count }
        return (out, Double(perBin) * Double(r.windowNanos) / 1e9)
    }
}

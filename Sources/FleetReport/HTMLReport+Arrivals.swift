import FleetMetrics

extension HTMLReport {
    /// Users arriving per minute of the run (from `user_start`, one sample per arrival), so that a
    /// compressed-day population run shows its peaks where the arrival curve put them.
    func arrivalsSection() -> String {
        let perMinute = Self.arrivalsPerMinute(results)
        guard perMinute.count >= 2 else { return "" }
        var s = "<section id=\"arrivals\">\n<h2>Arrivals per minute</h2>\n"
        s += "<p class=\"hint\">Users starting a visit in each minute of the run (actual start). For a population "
        s += "run over a compressed day, minute m of the run is UTC hour m × compression / 60 of the population's day.</p>\n"
        let series = ChartSeries(name: "arrivals", points: perMinute.enumerated().map { (Double($0.offset), Double($0.element)) })
        s += "<div class=\"charts\">" + figure(LineChart(title: "Users arriving per minute", xLabel: "minute of the run",
                                                        yLabel: "users per minute", series: [series],
                                                        xFormat: { "minute " + Format.tick($0) }))
        return s + "</div>\n</section>\n"
    }

    /// Arrivals per whole minute of the run, from the `user_start` metric's windows.
    static func arrivalsPerMinute(_ r: RunResults) -> [Int64] {
        guard let m = r.metric("user_start"), !m.windows.isEmpty, r.windowNanos > 0 else { return [] }
        let perMinute = max(1, Int(60_000_000_000 / r.windowNanos))
        let last = m.windows.map(\.index).max() ?? 0
        var out = [Int64](repeating: 0, count: last / perMinute + 1)
        for w in m.windows { out[w.index / perMinute] += w.corrected.count }
        return out
    }
}

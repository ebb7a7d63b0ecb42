import FleetMetrics
import Foundation

// The chart sections of the page: over time, percentile distributions, generator health.
extension HTMLReport {
    func timelineSection() -> String {
        var s = "<section id=\"timeline\">\n<h2>Over time</h2>\n"
        s += "<p class=\"hint\">One point per \(Format.tick(ReportFacts.windowSeconds(results))) s window, drawn at the window's middle. "
        s += "Latencies are corrected: measured from when the request was meant to start.</p>\n<div class=\"charts\">"
        for (name, title) in [(MetricName.assessmentTurnaround, "Assessment turnaround (user-seen)"), (MetricName.settlement, "Settlement")] {
            let series = results.metric(name).map { ReportFacts.percentileSeries(results, $0) } ?? []
            s += figure(LineChart(title: "\(title): p50, p90, p99 per window", xLabel: "time since start (s)",
                                  yLabel: "latency (ms)", series: series, yFormat: ms, xFormat: at))
        }
        s += figure(LineChart(title: "Requests per second by outcome", xLabel: "time since start (s)",
                              yLabel: "requests per second", series: ReportFacts.requestsByOutcome(results),
                              yFormat: { Format.tick($0) + "/s" }, xFormat: at))
        s += figure(LineChart(title: "Active users", xLabel: "time since start (s)", yLabel: "users",
                              series: Array(ReportFacts.health(results).users.prefix(1)), xFormat: at))
        s += figure(LineChart(title: "Errors per second by code", xLabel: "time since start (s)",
                              yLabel: "errors per second", series: ReportFacts.errorsByCode(results),
                              yFormat: { Format.tick($0) + "/s" }, xFormat: at, emptyMessage: "no errors recorded"))
        let lag = results.metric(MetricName.schedulingLag).map { ReportFacts.percentileSeries(results, $0, [50, 99, 100]) } ?? []
        s += figure(LineChart(title: "Scheduling lag (actual − intended start): p50, p99, max", xLabel: "time since start (s)",
                              yLabel: "lag (ms)", series: lag.enumerated().map { i, x in
                                  var c = x; if i == 2 { c.name = "max" }; return c }, yFormat: ms, xFormat: at))
        return s + "</div>\n</section>\n"
    }

    func distributionSection() -> String {
        var s = "<section id=\"distribution\">\n<h2>Percentile distribution</h2>\n"
        s += "<p class=\"hint\">Latency at each percentile; the percentile axis is logarithmic in the tail (90 %, 99 %, 99.9 % are equally spaced), "
        s += "as HdrHistogram plots it.\(baseline == nil ? "" : " The baseline run is drawn as a thinner line.")</p>\n<div class=\"charts\">"
        let names: [(MetricName, String)] = [(.assessmentTurnaround, "Assessment turnaround (user-seen)"),
                                             (.assessmentTurnaroundServer, "Assessment turnaround (stack-side)"), (.settlement, "Settlement")]
        for (name, title) in names {
            var series: [ChartSeries] = []
            if let m = results.metric(name) {
                series.append(ChartSeries(name: "corrected", points: ReportFacts.distribution(m.corrected)))
                if m.uncorrected != m.corrected {
                    series.append(ChartSeries(name: "uncorrected", points: ReportFacts.distribution(m.uncorrected)))
                }
            }
            if let b = baseline?.metric(name) {
                series.append(ChartSeries(name: "baseline (corrected)", points: ReportFacts.distribution(b.corrected), muted: true))
            }
            if series.isEmpty && results.metric(name) == nil && name == .assessmentTurnaroundServer { continue }
            s += figure(LineChart(title: "\(title) by percentile", xLabel: "percentile", yLabel: "latency (ms)",
                                  xKind: .nines, series: series, yFormat: ms, xFormat: percentile))
        }
        return s + "</div>\n</section>\n"
    }

    func healthSection() -> String {
        let h = ReportFacts.health(results)
        var s = "<section id=\"health\">\n<h2>Generator health</h2>\n"
        s += "<p class=\"hint\">The bench's own load while it measured: if its CPU is near 100 % of the cores it may use, "
        s += "its timings are suspect (see scheduling lag above); so are they when the host steals CPU from this machine (a virtual machine's hypervisor running other guests).</p>\n<div class=\"charts\">"
        s += figure(LineChart(title: "CPU used by the bench", xLabel: "time since start (s)", yLabel: "% of one core",
                              series: h.cpu, yFormat: { Format.tick($0) + " %" }, xFormat: at))
        s += figure(LineChart(title: "Resident memory of the bench", xLabel: "time since start (s)", yLabel: "MiB",
                              series: h.memory, yFormat: { Format.tick($0) + " MiB" }, xFormat: at))
        s += figure(LineChart(title: "Active users and requests in flight", xLabel: "time since start (s)", yLabel: "count",
                              series: h.users, xFormat: at))
        return s + "</div>\n" + shardTable() + "</section>\n"
    }

    func figure(_ chart: LineChart) -> String {
        "<figure><figcaption>\(Format.html(chart.title))</figcaption>\(chart.svg())</figure>"
    }

    var ms: (Double) -> String { { Format.duration(ms: $0) } }
    var at: (Double) -> String { { "t = " + Format.tick(($0 * 10).rounded() / 10) + " s" } }
    var percentile: (Double) -> String {
        { n in
            let p = 100 * (1 - 1 / Foundation.pow(10, n))
            return "p" + (p >= 99.99 ? String(format: "%.4f", p) : p >= 99 ? String(format: "%.2f", p) : String(format: "%.1f", p))
        }
    }

}

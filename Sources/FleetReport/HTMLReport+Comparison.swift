import FleetMetrics
import FleetStats
import Foundation

// The sections that look beyond this run: the baseline comparison and the history trend.
extension HTMLReport {
    func baselineSection() -> String {
        guard let b = baseline else { return "" }
        var s = "<section id=\"baseline\">\n<h2>Compared with the baseline</h2>\n"
        s += "<p class=\"hint\">Baseline run <code>\(Format.html(b.meta.runId))</code> of profile "
        s += "<code>\(Format.html(b.meta.profile))</code>, started \(Format.html(b.meta.startedAt)). "
        guard let c = comparison else { return s + "</p>\n</section>\n" }
        s += "Each ratio is this run's percentile over the baseline's, with its \(Int(c.confidence * 100)) % interval from a "
        s += "block bootstrap over both runs' windows; a figure is <b>worse</b> or <b>better</b> only when the whole interval "
        s += "lies beyond the minimum effect of \(Format.percent(c.minEffect)) and its near end is at least \(Format.duration(ms: c.minAbsoluteMs)) away. Rates use a two-proportion test.</p>\n"
        for w in c.warnings { s += "<p class=\"warning\">⚠ Not like for like: \(Format.html(w))</p>\n" }
        let regressions = c.regressions
        s += regressions.isEmpty ? "<p><b>No regression</b> on the headline metrics or rates.</p>\n"
            : "<p class=\"bad\"><b>✘ REGRESSION</b>: " + regressions.map(Format.html).joined(separator: "; ") + "</p>\n"
        s += "<div class=\"scroll\"><table class=\"compare\"><thead><tr><th>Metric</th><th>Percentile</th><th>Baseline</th>"
        s += "<th>This run</th><th>Ratio</th><th>Interval</th><th>Verdict</th></tr></thead><tbody>"
        for m in c.metrics {
            for p in m.percentiles {
                let label = p.percentile == p.percentile.rounded() ? "p\(Int(p.percentile))" : "p\(p.percentile)"
                s += "<tr><td><code>\(Format.html(m.name))</code>\(m.headline ? " ★" : "")</td><td>\(label)</td>"
                s += "<td>\(Format.duration(micros: p.baseMicros))</td><td>\(Format.duration(micros: p.newMicros))</td>"
                s += "<td>\(String(format: "%.3f", p.ratio))</td>"
                s += "<td>\(p.low.map { String(format: "%.3f – %.3f", $0, p.high ?? $0) } ?? "too few windows")</td>"
                s += verdictCell(p.verdict) + "</tr>"
            }
        }
        s += "</tbody></table></div>\n<p class=\"hint\">★ headline metric: a worse verdict there is a regression (exit 97).</p>\n"
        s += "<table class=\"compare\"><thead><tr><th>Rate</th><th>Baseline</th><th>This run</th><th>Difference (95 %)</th>"
        s += "<th>p-value</th><th>Verdict</th></tr></thead><tbody>"
        for r in c.rates {
            let t = r.test
            s += "<tr><td><code>\(Format.html(r.name))</code></td><td>\(Format.percent(t.baseRate))</td><td>\(Format.percent(t.newRate))</td>"
            s += "<td>\(String(format: "%+.3f – %+.3f", t.low * 100, t.high * 100)) points</td><td>\(String(format: "%.3g", t.pValue))</td>"
            s += verdictCell(r.verdict) + "</tr>"
        }
        s += "</tbody></table>\n"
        s += "<p>Throughput: \(String(format: "%.1f", c.baseRequestsPerSecond)) requests/s in the baseline, "
        s += "\(String(format: "%.1f", c.newRequestsPerSecond)) in this run (set by the profile; shown, not judged).</p>\n"
        return s + "</section>\n"
    }

    private func verdictCell(_ v: ChangeVerdict) -> String {
        switch v {
        case .worse: return "<td class=\"bad\">▲ worse</td>"
        case .better: return "<td class=\"good\">▼ better</td>"
        case .same: return "<td>= same</td>"
        }
    }

    func historySection() -> String {
        let runs = history.filter { $0.profile == results.meta.profile }.suffix(30)
        var s = "<section id=\"history\">\n<h2>History of profile <code>\(Format.html(results.meta.profile))</code></h2>\n"
        guard !runs.isEmpty else { return s + "<p class=\"empty\">No earlier runs of this profile.</p>\n</section>\n" }
        let indexed = Array(runs.enumerated())
        func series(_ name: String, _ value: (HistoryRow) -> Double?) -> ChartSeries {
            ChartSeries(name: name, points: indexed.compactMap { i, r in value(r).map { (Double(i + 1), $0) } })
        }
        let changes = HistoryChanges.find(Array(runs))
        s += "<div class=\"charts\">"
        s += figure(LineChart(title: "Trend over the last \(runs.count) runs", xLabel: "run (oldest → newest)", yLabel: "latency (ms)",
                              series: [series("turnaround p50", \.turnaroundP50Ms), series("turnaround p99", \.turnaroundP99Ms),
                                       series("settlement p50", \.settlementP50Ms), series("settlement p99", \.settlementP99Ms)],
                              yFormat: ms, xFormat: { "run \(Int($0))" }, integerX: true,
                              marks: changes.filter { $0.metric.hasSuffix("_ms") }.map {
                                  (Double($0.position + 1), "change: \($0.metric) \(String(format: "%+.0f", $0.relativeChange * 100)) %")
                              }))
        s += "</div>\n"
        if changes.isEmpty {
            s += "<p class=\"hint\">No change points (E-divisive means, p ≤ 0.001, step ≥ 5 %).</p>\n"
        } else {
            s += "<p>Change points (E-divisive means, p ≤ 0.001, step ≥ 5 %), marked on the chart:</p><ul class=\"changes\">"
            for c in changes {
                s += "<li>run \(c.position + 1) <code>\(Format.html(c.runId))</code>: \(Format.html(c.metric)) "
                s += "\(String(format: "%.4g", c.before)) → \(String(format: "%.4g", c.after)) "
                s += "(\(String(format: "%+.1f", c.relativeChange * 100)) %, p = \(String(format: "%.4f", c.pValue)))</li>"
            }
            s += "</ul>\n"
        }
        s += "<div class=\"scroll\"><table class=\"history\"><thead><tr><th>#</th><th>Run</th><th>Started</th><th>Revision</th>"
        s += "<th>Verdict</th><th>Turn. p50</th><th>Turn. p99</th><th>Settle p50</th><th>Settle p99</th>"
        s += "<th>Requests</th><th>Error rate</th></tr></thead><tbody>"
        for (i, r) in indexed.reversed() {
            let current = r.runId == results.meta.runId
            s += "<tr\(cls(current ? "current" : nil))><td>\(i + 1)</td><td><code>\(Format.html(r.runId))</code>\(current ? " (this run)" : "")</td>"
            s += "<td>\(Format.html(Format.shortTime(r.startedAt)))</td><td><code>\(Format.html(r.gitRevision))</code></td>"
            s += "<td\(cls(r.verdict == "failed" ? "bad" : nil))>\(r.verdict == "failed" ? "✘ failed" : r.verdict == "passed" ? "✔ passed" : "–")"
            s += r.generatorBehind ? "<br>⚠ generator behind" : ""
            s += "</td>"
            for v in [r.turnaroundP50Ms, r.turnaroundP99Ms, r.settlementP50Ms, r.settlementP99Ms] {
                s += "<td>\(v.map { Format.duration(ms: $0) } ?? "–")</td>"
            }
            s += "<td>\(Format.count(r.requests))</td><td>\(Format.percent(r.errorRate))</td></tr>"
        }
        return s + "</tbody></table></div>\n</section>\n"
    }
}

import FleetMetrics
import Foundation

// The sections that look beyond this run: the baseline comparison and the history trend.
extension HTMLReport {
    func baselineSection() -> String {
        guard let b = baseline else { return "" }
        var s = "<section id=\"baseline\">\n<h2>Compared with the baseline</h2>\n"
        s += "<p class=\"hint\">Baseline run <code>\(Format.html(b.meta.runId))</code> of profile "
        s += "<code>\(Format.html(b.meta.profile))</code>, started \(Format.html(b.meta.startedAt)). "
        s += "Changes under 0.5 % are shown as the same.</p>\n"
        s += "<table class=\"compare\"><thead><tr><th>Metric</th><th>Baseline p50</th><th>This run p50</th><th>Change</th>"
        s += "<th>Baseline p99</th><th>This run p99</th><th>Change</th></tr></thead><tbody>"
        var names = CSVTables.headlineMetrics
        for m in results.metrics where !names.contains(m.name) && m.name != Recorder.schedulingLag { names.append(m.name) }
        let rows: [(String, Histogram?, Histogram?)] = names.map { ($0, results.metric($0)?.corrected, b.metric($0)?.corrected) }
            + results.endpoints.map { ($0.latency.name, $0.latency.corrected, b.endpoint($0.name)?.latency.corrected) }
        for (name, now, before) in rows {
            guard let now, !now.isEmpty else { continue }
            let p = now.values(atPercentiles: [50, 99])
            s += "<tr><td><code>\(Format.html(name))</code></td>"
            if let before, !before.isEmpty {
                let q = before.values(atPercentiles: [50, 99])
                s += "<td>\(Format.duration(micros: q[0]))</td><td>\(Format.duration(micros: p[0]))</td><td>\(delta(Double(p[0]), Double(q[0])))</td>"
                s += "<td>\(Format.duration(micros: q[1]))</td><td>\(Format.duration(micros: p[1]))</td><td>\(delta(Double(p[1]), Double(q[1])))</td>"
            } else {
                s += "<td>–</td><td>\(Format.duration(micros: p[0]))</td><td>new</td><td>–</td><td>\(Format.duration(micros: p[1]))</td><td>new</td>"
            }
            s += "</tr>"
        }
        return s + "</tbody></table>\n</section>\n"
    }

    func historySection() -> String {
        let runs = history.filter { $0.profile == results.meta.profile }.suffix(30)
        var s = "<section id=\"history\">\n<h2>History of profile <code>\(Format.html(results.meta.profile))</code></h2>\n"
        guard !runs.isEmpty else { return s + "<p class=\"empty\">No earlier runs of this profile.</p>\n</section>\n" }
        let indexed = Array(runs.enumerated())
        func series(_ name: String, _ value: (HistoryRow) -> Double?) -> ChartSeries {
            ChartSeries(name: name, points: indexed.compactMap { i, r in value(r).map { (Double(i + 1), $0) } })
        }
        s += "<div class=\"charts\">"
        s += figure(LineChart(title: "Trend over the last \(runs.count) runs", xLabel: "run (oldest → newest)", yLabel: "latency (ms)",
                              series: [series("turnaround p50", \.turnaroundP50Ms), series("turnaround p99", \.turnaroundP99Ms),
                                       series("settlement p50", \.settlementP50Ms), series("settlement p99", \.settlementP99Ms)],
                              yFormat: ms, xFormat: { "run \(Int($0))" }, integerX: true))
        s += "</div>\n<div class=\"scroll\"><table class=\"history\"><thead><tr><th>#</th><th>Run</th><th>Started</th><th>Revision</th>"
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

import FleetMetrics
import Foundation

/// Figures derived from results for the page and the CSVs: rates, per-window series, rankings.
enum ReportFacts {
    static func windowSeconds(_ r: RunResults) -> Double { Double(r.windowNanos) / 1e9 }

    /// The run's length: as measured, or else the span of the recorded windows.
    static func durationSeconds(_ r: RunResults) -> Double {
        if r.meta.actualDurationSeconds > 0 { return r.meta.actualDurationSeconds }
        let last = (r.metrics.flatMap { $0.windows.map(\.index) } + r.endpoints.flatMap { $0.latency.windows.map(\.index) }).max()
        return last.map { Double($0 + 1) * windowSeconds(r) } ?? 0
    }

    /// Why the generator fell behind, empty when it kept up. The run's own verdict (notes starting
    /// "generator fell behind: ", judged with the profile's lag bound) wins; results without one
    /// are judged here with `meta.lagBoundMicros` or the default bound.
    static func generatorBehind(_ r: RunResults) -> [String] {
        let prefix = "generator fell behind: "
        let noted = r.meta.notes.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        return noted.isEmpty ? r.generatorBehindReasons() : noted
    }

    /// Requests per second over the whole run.
    static func requestRate(_ r: RunResults) -> Double {
        let d = durationSeconds(r)
        return d > 0 ? Double(r.requestTotals.requests) / d : 0
    }

    static func errorRate(_ r: RunResults) -> Double {
        let t = r.requestTotals
        return t.requests > 0 ? Double(t.errors) / Double(t.requests) : 0
    }

    /// Journeys completed and started, over every journey and cohort (cohort warm-ups left out:
    /// they are set-up, not load).
    static func journeyTotals(_ r: RunResults) -> (started: Int64, completed: Int64, failed: Int64) {
        r.measuredJourneys.reduce((0, 0, 0)) { ($0.0 + $1.started, $0.1 + $1.completed, $0.2 + $1.failed) }
    }

    /// The error table ordered most frequent first (ties in table order).
    static func errorsByCount(_ r: RunResults) -> [ErrorRow] {
        r.errors.enumerated().sorted { ($1.element.count, $0.offset) < ($0.element.count, $1.offset) }.map(\.element)
    }

    /// The middle of window `index`, in seconds from the start (where its point is drawn).
    static func windowMid(_ r: RunResults, _ index: Int) -> Double { (Double(index) + 0.5) * windowSeconds(r) }

    /// p50/p90/p99 (ms) of a metric per window, one series per percentile.
    static func percentileSeries(_ r: RunResults, _ m: MetricResult, _ ps: [Double] = [50, 90, 99]) -> [ChartSeries] {
        var series = ps.map { ChartSeries(name: "p" + Format.tick($0), points: []) }
        for w in m.windows where !w.corrected.isEmpty {
            let v = w.corrected.values(atPercentiles: ps)
            for k in 0..<ps.count { series[k].points.append((windowMid(r, w.index), Double(v[k]) / 1000)) }
        }
        return series
    }

    /// The index range of all windows with any sample, for series that must show zeros.
    static func windowRange(_ r: RunResults) -> ClosedRange<Int>? {
        let all = r.metrics.flatMap { $0.windows.map(\.index) } + r.endpoints.flatMap { $0.latency.windows.map(\.index) }
            + r.health.map(\.window)
        guard let lo = all.min(), let hi = all.max() else { return nil }
        return lo...hi
    }

    /// Requests per second by outcome per window: succeeded, 4xx, 5xx, no response.
    static func requestsByOutcome(_ r: RunResults) -> [ChartSeries] {
        guard let range = windowRange(r) else { return [] }
        var total = [Int: Int64](), c4 = [Int: Int64](), c5 = [Int: Int64](), transport = [Int: Int64](), errs = [Int: Int64]()
        for e in r.endpoints {
            for w in e.latency.windows { total[w.index, default: 0] += w.corrected.count; errs[w.index, default: 0] += w.errors }
        }
        for row in r.errors {
            for w in row.windows {
                switch row.status {
                case nil: transport[w.window, default: 0] += w.count
                case let s? where s >= 500: c5[w.window, default: 0] += w.count
                default: c4[w.window, default: 0] += w.count
                }
            }
        }
        let ws = windowSeconds(r)
        func series(_ name: String, _ value: (Int) -> Int64) -> ChartSeries {
            ChartSeries(name: name, points: range.map { (windowMid(r, $0), Double(value($0)) / ws) })
        }
        return [series("succeeded (< 400)") { (total[$0] ?? 0) - (errs[$0] ?? 0) },
                series("4xx") { c4[$0] ?? 0 }, series("5xx") { c5[$0] ?? 0 }, series("no response") { transport[$0] ?? 0 }]
    }

    /// Errors per second by code (or status when there is no code), the `limit` most frequent codes.
    static func errorsByCode(_ r: RunResults, limit: Int = 6) -> [ChartSeries] {
        guard let range = windowRange(r) else { return [] }
        var byCode: [String: [Int: Int64]] = [:]
        var totals: [String: Int64] = [:]
        for row in r.errors {
            let code = row.code ?? row.status.map { "HTTP \($0)" } ?? "transport"
            totals[code, default: 0] += row.count
            for w in row.windows { byCode[code, default: [:]][w.window, default: 0] += w.count }
        }
        let top = totals.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(limit).map(\.key)
        let ws = windowSeconds(r)
        return top.map { code in
            ChartSeries(name: code, points: range.map { (windowMid(r, $0), Double(byCode[code]?[$0] ?? 0) / ws) })
        }
    }

    /// Generator health series: active users, in-flight requests, CPU % of one core (the bench's,
    /// and the host's steal when the samples carry it), RSS MiB.
    static func health(_ r: RunResults) -> (users: [ChartSeries], cpu: [ChartSeries], memory: [ChartSeries]) {
        let hs = r.health.sorted { $0.window < $1.window }
        let users = [ChartSeries(name: "active users", points: hs.map { (windowMid(r, $0.window), Double($0.activeUsers)) }),
                     ChartSeries(name: "requests in flight", points: hs.map { (windowMid(r, $0.window), Double($0.inFlight)) })]
        var cpu = ChartSeries(name: "CPU (% of one core)", points: [])
        for (a, b) in zip(hs, hs.dropFirst()) where b.window > a.window {
            let seconds = Double(b.window - a.window) * windowSeconds(r)
            cpu.points.append((windowMid(r, b.window), Swift.max(0, (b.cpuSeconds - a.cpuSeconds) / seconds * 100)))
        }
        let steal = ChartSeries(name: "host steal (% of one core)",
                                points: r.hostStealShares().map { (windowMid(r, $0.window), $0.share * 100) })
        let memory = [ChartSeries(name: "resident memory (MiB)", points: hs.map { (windowMid(r, $0.window), Double($0.rssBytes) / 1_048_576) })]
        return (users, steal.points.isEmpty ? [cpu] : [cpu, steal], memory)
    }

    /// Points of a percentile-distribution plot: (nines, ms), HdrHistogram style, up to the
    /// resolution the sample count supports, ending at the max.
    static func distribution(_ h: Histogram) -> [(x: Double, y: Double)] {
        guard h.count > 0 else { return [] }
        let maxNines = Swift.max(1, Foundation.log10(Double(h.count)))
        let steps = Int((maxNines * 20).rounded(.up))
        let ps = (0...steps).map { k in 100 * (1 - Foundation.pow(10, -Double(k) / 20)) }
        let vs = h.values(atPercentiles: ps)
        var pts = zip(ps, vs).map { (ChartScale.nines(ofPercentile: $0), Double($1) / 1000) }
        pts.append((maxNines + 0.05, Double(h.max) / 1000))
        return pts
    }
}

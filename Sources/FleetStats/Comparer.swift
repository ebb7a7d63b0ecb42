import FleetMetrics

/// Compares a run with a baseline: percentiles with bootstrap intervals, rates with a
/// two-proportion test, and a verdict per figure that is `worse` only when the whole interval
/// lies beyond the minimum effect.
public struct Comparer: Sendable {
    /// The smallest relative change that counts (0.05 = 5 %), from the profile's `regression.min_effect`.
    public var minEffect: Double
    /// The smallest absolute change of a latency that counts, ms (`regression.min_abs_ms`, default 10):
    /// on a shared machine a sub-10 ms figure moves by a few ms between runs with the load of
    /// other processes, and no user notices it.
    public var minAbsoluteMs: Double
    public var bootstrap: BlockBootstrap
    /// A rate is worse only when its test's p-value is under this and the change is at least `minRateChange`.
    public var rateAlpha: Double
    /// Absolute change of a rate below which it is the same however significant (0.001 = 0.1 point).
    public var minRateChange: Double
    public var percentiles: [Double]
    /// The metrics whose verdicts decide a regression.
    public var headline: [String]

    public static let defaultHeadline = MetricName.headline.map(\.rawValue)

    public init(minEffect: Double = 0.05, minAbsoluteMs: Double = 10, bootstrap: BlockBootstrap = BlockBootstrap(), rateAlpha: Double = 0.01,
                minRateChange: Double = 0.001, percentiles: [Double] = [50, 90, 99],
                headline: [String] = Comparer.defaultHeadline) {
        self.minEffect = minEffect
        self.minAbsoluteMs = minAbsoluteMs
        self.bootstrap = bootstrap
        self.rateAlpha = rateAlpha
        self.minRateChange = minRateChange
        self.percentiles = percentiles
        self.headline = headline
    }

    /// Why `base` and `new` are not like for like: a different profile hash (or name, when a
    /// run has no hash) or a different target. Empty when they are.
    public static func mismatches(base: RunMetadata, new: RunMetadata) -> [String] {
        var out: [String] = []
        if let hb = base.profileHash, let hn = new.profileHash {
            if hb != hn { out.append("profile hash \(hb.prefix(12)) (\(base.profile)) ≠ \(hn.prefix(12)) (\(new.profile))") }
        } else if base.profile != new.profile {
            out.append("profile '\(base.profile)' ≠ '\(new.profile)'")
        }
        if targetKind(base.target) != targetKind(new.target) {
            out.append("target '\(base.target)' ≠ '\(new.target)'")
        }
        return out
    }

    /// An embedded stack gets a new loopback port every run; it is the same target each time.
    static func targetKind(_ t: String) -> String { t.hasPrefix("embedded") ? "embedded" : t }

    public func compare(base: RunResults, new: RunResults, force: Bool = false) throws(ComparisonRefused) -> RunComparison {
        let problems = Self.mismatches(base: base.meta, new: new.meta)
        if !problems.isEmpty && !force { throw ComparisonRefused(reasons: problems) }
        var metrics: [MetricComparison] = []
        var names = headline.filter { new.metric($0) != nil || base.metric($0) != nil }
        for m in new.metrics where !names.contains(m.name) && m.name != MetricName.schedulingLag.rawValue { names.append(m.name) }
        for name in names {
            guard let b = base.metric(name), let n = new.metric(name) else { continue }
            if let c = compareMetric(name, b, n, headline: headline.contains(name)) { metrics.append(c) }
        }
        for e in new.endpoints {
            guard let b = base.endpoint(e.name) else { continue }
            if let c = compareMetric(e.latency.name, b.latency, e.latency, headline: false) { metrics.append(c) }
        }
        let bt = base.requestTotals, nt = new.requestTotals
        var rates = [rate("http_errors", bt.errors, bt.requests, nt.errors, nt.requests, higherIsBetter: false)]
        let bj = Self.journeyTotals(base), nj = Self.journeyTotals(new)
        if bj.started > 0 || nj.started > 0 {
            rates.append(rate("journey_completion", bj.completed, bj.started, nj.completed, nj.started, higherIsBetter: true))
        }
        return RunComparison(baseRunId: base.meta.runId, newRunId: new.meta.runId, minEffect: minEffect, minAbsoluteMs: minAbsoluteMs,
                             confidence: bootstrap.confidence, metrics: metrics, rates: rates,
                             baseRequestsPerSecond: Self.rps(base), newRequestsPerSecond: Self.rps(new), warnings: problems)
    }

    func compareMetric(_ name: String, _ b: MetricResult, _ n: MetricResult, headline: Bool) -> MetricComparison? {
        guard !b.corrected.isEmpty, !n.corrected.isEmpty else { return nil }
        let qb = b.corrected.values(atPercentiles: percentiles), qn = n.corrected.values(atPercentiles: percentiles)
        let intervals = bootstrap.ratioIntervals(base: b.windows.map(\.corrected), new: n.windows.map(\.corrected),
                                                 percentiles: percentiles, stream: name)
        var rows: [PercentileChange] = []
        for (i, p) in percentiles.enumerated() where qb[i] > 0 {
            let iv = intervals?[i]
            rows.append(PercentileChange(percentile: p, baseMicros: qb[i], newMicros: qn[i], ratio: Double(qn[i]) / Double(qb[i]),
                                         low: iv?.low, high: iv?.high,
                                         verdict: verdict(low: iv?.low, high: iv?.high, baseMicros: qb[i])))
        }
        return MetricComparison(name: name, headline: headline, baseCount: b.corrected.count, newCount: n.corrected.count,
                                percentiles: rows)
    }

    /// Latency ratios: worse when the whole interval is above 1 + minEffect and its low end is at
    /// least `minAbsoluteMs` slower than the baseline; better likewise below 1 - minEffect.
    func verdict(low: Double?, high: Double?, baseMicros: Int64) -> ChangeVerdict {
        guard let low, let high else { return .same }
        let base = Double(baseMicros), floor = minAbsoluteMs * 1000
        if low > 1 + minEffect && (low - 1) * base >= floor { return .worse }
        if high < 1 - minEffect && (1 - high) * base >= floor { return .better }
        return .same
    }

    func rate(_ name: String, _ xb: Int64, _ nb: Int64, _ xn: Int64, _ nn: Int64, higherIsBetter: Bool) -> RateComparison {
        let t = ProportionTest(successes: xb, of: nb, versus: xn, of: nn)
        var v = ChangeVerdict.same
        let diff = t.newRate - t.baseRate
        if t.pValue < rateAlpha && abs(diff) >= minRateChange {
            v = (diff > 0) == higherIsBetter ? .better : .worse
        }
        return RateComparison(name: name, test: t, higherIsBetter: higherIsBetter, verdict: v)
    }

    static func journeyTotals(_ r: RunResults) -> (started: Int64, completed: Int64) {
        r.measuredJourneys.reduce((0, 0)) { ($0.0 + $1.started, $0.1 + $1.completed) }
    }

    static func rps(_ r: RunResults) -> Double {
        let d = r.meta.actualDurationSeconds > 0 ? r.meta.actualDurationSeconds : r.meta.plannedDurationSeconds
        return d > 0 ? Double(r.requestTotals.requests) / d : 0
    }
}

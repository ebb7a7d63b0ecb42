import FleetCore
import FleetMetrics

/// Results files made from known distributions, so that a comparison's verdict can be checked
/// against the truth.
enum Synthetic {
    /// A run of `windows` one-second windows with `perWindow` lognormal samples each (median in ms),
    /// plus a slow drift shared by neighbouring windows (a queue that builds and drains).
    static func run(id: String, seed: UInt64, medianMs: Double, sigma: Double = 0.4, windows: Int = 60,
                    perWindow: Int = 20, metric: String = "assessment_turnaround",
                    errors: (Int64, Int64) = (5, 5000), hash: String = "h1") -> RunResults {
        var rng = SeededRandom(seed: seed)
        var m = MetricResult(name: metric)
        var drift = 1.0
        for w in 0..<windows {
            drift = 0.8 * drift + 0.2 * (1 + 0.1 * rng.normal())
            var h = Histogram()
            for _ in 0..<perWindow { h.record(Int64(rng.lognormal(median: medianMs * 1000 * drift, sigma: sigma))) }
            m.corrected.merge(h)
            m.windows.append(MetricWindow(index: w, corrected: h, uncorrected: h))
        }
        m.uncorrected = m.corrected
        var e = EndpointResult(name: "GET /home")
        var lat = Histogram()
        for _ in 0..<Int(errors.1) { lat.record(Int64(rng.lognormal(median: 2000, sigma: 0.2))) }
        e.latency.corrected = lat
        e.latency.uncorrected = lat
        e.latency.errors = errors.0
        let meta = RunMetadata(runId: id, profile: "p", seed: seed, target: "embedded (http://127.0.0.1:\(4000 + seed))",
                               startedAt: "2026-12-01T00:00:00Z", plannedDurationSeconds: Double(windows),
                               actualDurationSeconds: Double(windows), profileHash: hash)
        return RunResults(meta: meta, metrics: [m], endpoints: [e])
    }
}

import FleetCore
import FleetMetrics

/// A deterministic small run fed through a real `Recorder`: every kind of sample the report shows.
///
/// `Fixtures/results.json` and `Fixtures/baseline.json` were written from `results(seed: 1)` and
/// `results(seed: 2, slowdown: 0.8, stall: false)` (JSON via `encodedJSON()`); the snapshot test
/// reads the files, so a change here does not silently change the snapshot.
enum FixtureFeed {
    static let second: UInt64 = 1_000_000_000

    static func results(seed: UInt64, slowdown: Double = 1.0, stall: Bool = true, seconds: Int = 20) -> RunResults {
        let r = Recorder(startNanos: 0)
        var rng = SeededRandom(seed: seed)
        let endpoints = ["POST /auth/anonymous", "GET /home", "POST /sessions", "POST /sessions/{id}/attempts",
                         "PUT /uploads/{key}", "POST /attempts/{id}/submit", "GET /attempts/{id}", "POST /sessions/{id}/complete"]
        let cohorts = ["new", "returning"]
        for s in 0..<seconds {
            // A 1 s generator stall at t = 12 s: requests go out late, the corrected latency shows it.
            let lag: UInt64 = (stall && s == 12) ? 900_000_000 : 0
            for k in 0..<24 {
                let intended = UInt64(s) * second + UInt64(k) * (second / 24)
                let actual = intended + lag + UInt64(rng.exponential(mean: 150_000))
                let endpoint = endpoints[k % endpoints.count]
                let service = rng.lognormal(median: (endpoint.hasPrefix("PUT") ? 30e6 : 4e6) * slowdown, sigma: 0.6)
                let end = actual + UInt64(service)
                let roll = rng.unit()
                let status: Int? = roll < 0.015 ? nil : roll < 0.04 ? 503 : (endpoint == "POST /sessions" && roll < 0.08) ? 409 : 200
                let code: String? = status == nil ? "timeout" : status == 503 ? "unavailable" : status == 409 ? "stage_precondition" : nil
                let message: String? = status == nil ? "no response within 5 s" : status == 409 ? "round 1 is not assessed yet" : nil
                let breakdown = status == nil ? nil : RequestBreakdown(
                    dnsMicros: k % 6 == 0 ? 40 : 0, connectMicros: k % 6 == 0 ? 180 : 0, tlsMicros: 0,
                    firstByteMicros: Int64(service / 1000 * 0.8), totalMicros: Int64(service / 1000))
                r.recordRequest(endpoint, intended: intended, actual: actual, end: end, status: status, errorCode: code,
                                message: message, breakdown: breakdown)
            }
            for k in 0..<3 {
                let intended = UInt64(s) * second + UInt64(k) * (second / 3)
                let actual = intended + lag
                let turnaround = rng.lognormal(median: 2.2e9 * slowdown, sigma: 0.35)
                r.recordLatency(MetricName("assessment_turnaround"), intended: intended, actual: actual, end: actual + UInt64(turnaround))
                r.recordValue(MetricName("assessment_turnaround_server"), micros: Int64(turnaround / 1000 * 0.85), at: actual + UInt64(turnaround))
                if k == 0 {
                    r.recordLatency(MetricName("settlement"), intended: intended, actual: actual,
                                    end: actual + UInt64(rng.lognormal(median: 60e6 * slowdown, sigma: 0.5)))
                }
                let cohort = cohorts[(s + k) % 2]
                let journey = k == 2 ? "firstLaunch" : "dailyQuest"
                r.journeyStarted(journey, cohort: cohort)
                let steps = journey == "dailyQuest" ? ["home", "session", "round1", "round2", "complete"] : ["auth", "onboarding", "diagnostic", "paywall"]
                let leaveAt = rng.chance(0.75) ? steps.count : Int(rng.unit() * Double(steps.count))
                for step in steps[0..<min(leaveAt + 1, steps.count)] {
                    r.journeyReached(journey, cohort: cohort, step: step)
                }
                let end = intended + UInt64(rng.lognormal(median: 45e9 * slowdown, sigma: 0.3))
                if leaveAt >= steps.count {
                    r.journeyEnded(journey, cohort: cohort, outcome: .completed, step: steps.last!, errorCode: nil, intended: intended, end: end)
                } else if rng.chance(0.5) {
                    r.journeyEnded(journey, cohort: cohort, outcome: .abandoned, step: steps[leaveAt], errorCode: nil, intended: intended, end: end)
                } else {
                    r.journeyEnded(journey, cohort: cohort, outcome: .failed, step: steps[leaveAt], errorCode: "unexpected_status",
                                   intended: intended, end: end)
                }
            }
        }
        r.count("dropped_arrivals", stall ? 3 : 0)
        r.count("retries", 17)
        let runId = "fixture-\(seed)"
        var meta = RunMetadata(runId: runId, profile: "smoke", seed: seed, target: "http://127.0.0.1:8080",
                               startedAt: seed == 1 ? "2026-11-29T15:00:00Z" : "2026-11-28T15:00:00Z",
                               plannedDurationSeconds: Double(seconds), actualDurationSeconds: Double(seconds),
                               gitRevision: "abc1234")
        var results = r.snapshot(meta)
        // Health samples are taken from the wall clock in a live run; here they are laid out by hand.
        results.health = (0..<seconds).map { s in
            HealthSample(window: s, activeUsers: 20 + s * 3, inFlight: 5 + (s * 7) % 11, cpuSeconds: Double(s) * 0.42,
                         rssBytes: Int64(40 + s) * 1_048_576)
        }
        meta.thresholds = (try? Threshold.evaluateAll(["assessment_turnaround": ["p99 < 3000", "p50 < 3000"],
                                                       "http_errors": ["rate < 0.05"]], in: results)) ?? []
        if stall { meta.notes = ["interrupted by SIGINT after 20 s; report written from what was measured"] }
        results.meta = meta
        return results
    }
}

import FleetClient
import FleetMetrics

extension Profile {
    /// Printed after a run of a population profile: the measured arrival peak, and what the
    /// whole population would ask of each endpoint at its peak (requests per visit as measured,
    /// times the curve's peak rate).
    public func populationLines(after r: RunResults) -> [String] {
        guard let curve = arrivalCurve else { return [] }
        let visits = r.counterOverScenarios(.usersStarted)
        guard visits > 0 else { return ["population: no visit started"] }
        var out: [String] = []
        if let m = r.metric(.userStart), r.windowNanos > 0 {
            let perMinute = max(1, Int(60_000_000_000 / r.windowNanos))
            var minutes: [Int: Int64] = [:]
            for w in m.windows { minutes[w.index / perMinute, default: 0] += w.corrected.count }
            if let top = minutes.max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) }) {
                out.append("population: measured \(visits) visits; busiest run minute \(top.key) with \(top.value) arrivals")
            }
        }
        let peak = curve.peak.rate
        // Cohort warm-ups and the end-of-run audit are the bench's set-up and checking, not the population's load.
        let perEndpoint = r.endpoints.filter { !EndpointLabel.isScoped($0.name) }.map { e in (e.name, Double(e.latency.corrected.count) / Double(visits) * peak) }
            .sorted { $0.1 > $1.1 }
        let total = perEndpoint.reduce(0) { $0 + $1.1 }
        let expected = expectedRequests(curve.spec).perVisit
        out.append(String(format: "population: at its peak (%.3g users/s) the whole population would send ~%.3g requests/s "
                          + "(requests per visit as measured in this run; forecast before it: ~%.3g/s):",
                          peak, total, expected.values.reduce(0, +) * peak))
        for (name, rps) in perEndpoint.prefix(12) {
            out.append(String(format: "population:   %@ %.3g/s (forecast %.3g/s)", name, rps, (expected[name] ?? 0) * peak))
        }
        return out
    }
}

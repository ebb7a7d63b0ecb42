import FleetMetrics
import Foundation

/// The Prometheus text exposition format (version 0.0.4) of a run in progress: what
/// `--metrics-listen` serves, so a soak or a nightly run can be watched from an existing Grafana.
public enum PrometheusText {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Bucket bounds of the latency histograms, seconds: from 1 ms (settlement) to 2 min (turnaround under load).
    public static let bounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

    /// The metrics shown as histograms: the headline ones and the generator's own lag.
    public static let histogramMetrics = MetricName.headline + [.schedulingLag]

    public static func render(_ v: LiveView, activeUsers: Int, inFlight: Int) -> String {
        var s = ""
        family(&s, "fleet_elapsed_seconds", "gauge", "Seconds since the run's start.")
        s += "fleet_elapsed_seconds \(num(Double(v.elapsedNanos) / 1e9))\n"
        family(&s, "fleet_active_users", "gauge", "Virtual users walking a journey now.")
        s += "fleet_active_users \(activeUsers)\n"
        family(&s, "fleet_in_flight_requests", "gauge", "HTTP requests sent and not yet answered.")
        s += "fleet_in_flight_requests \(inFlight)\n"
        family(&s, "fleet_requests_total", "counter", "Requests by endpoint and status (transport: no response).")
        for r in v.requests { s += "fleet_requests_total{endpoint=\"\(label(r.endpoint))\",status=\"\(label(r.status))\"} \(r.count)\n" }
        family(&s, "fleet_journeys_started_total", "counter", "Journeys started, by journey and cohort.")
        for j in v.journeys { s += "fleet_journeys_started_total{journey=\"\(label(j.journey))\",cohort=\"\(label(j.cohort))\"} \(j.started)\n" }
        family(&s, "fleet_journeys_total", "counter", "Journeys ended, by journey, cohort and outcome.")
        for j in v.journeys {
            for (outcome, n) in [("completed", j.completed), ("abandoned", j.abandoned), ("failed", j.failed)] {
                s += "fleet_journeys_total{journey=\"\(label(j.journey))\",cohort=\"\(label(j.cohort))\",outcome=\"\(outcome)\"} \(n)\n"
            }
        }
        family(&s, "fleet_events_total", "counter", "The run's counters (retries, dropped arrivals, ...), by name.")
        for c in v.counters { s += "fleet_events_total{name=\"\(label(c.name))\"} \(c.value)\n" }
        for name in histogramMetrics {
            let h = v.metrics.first { $0.name == name.rawValue }?.histogram ?? Histogram()
            let metric = "fleet_\(name)_seconds"
            family(&s, metric, "histogram", name == .schedulingLag ? "How late requests went out (actual - intended start)."
                   : "\(name), from the intended start (coordinated-omission corrected).")
            let bins = h.bins()
            var i = 0
            var cumulative: Int64 = 0
            for b in bounds {
                let limit = Int64((b * 1e6).rounded())
                // A bin counts towards a bucket when all of it lies at or below the bound (bins are
                // 0.1 % wide, so this is the bound to within the histogram's precision).
                while i < bins.count && bins[i].highestValue <= limit { cumulative += bins[i].count; i += 1 }
                s += "\(metric)_bucket{le=\"\(num(b))\"} \(cumulative)\n"
            }
            s += "\(metric)_bucket{le=\"+Inf\"} \(h.count)\n"
            s += "\(metric)_sum \(num(Double(h.sum) / 1e6))\n"
            s += "\(metric)_count \(h.count)\n"
        }
        return s
    }

    private static func family(_ s: inout String, _ name: String, _ type: String, _ help: String) {
        s += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// Label values escape backslash, double quote and newline.
    static func label(_ v: String) -> String {
        v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func num(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }
}

import FleetClient
import FleetJourneys
import FleetMetrics

/// The names a threshold may be keyed by, so that `"foo": ["p99 < 10"]` is refused when the
/// profile is validated instead of failing (or, worse, passing unseen) after the run. The
/// end-to-end run tests check that every name a real run records is known here.
enum ThresholdMetrics {
    /// Journey metrics (latency histograms) the bench records.
    static let journeyMetrics: Set<String> = [
        "assessment_turnaround", "assessment_turnaround_server", "settlement", "settlement_e2e", "settlement_replay",
        "user_start", Recorder.schedulingLag,
    ]
    /// All requests together.
    static let aggregates: Set<String> = ["http", "http_errors", "http_requests", "http_reqs"]
    /// Counters; `users_started:` and `dropped_arrivals:` are also kept per scenario name.
    static let counters: Set<String> = ["dropped_arrivals", "app_kills", "uploads_cut", "retries", "aborted_requests",
                                        "unlock_hint_toasts", "unlock_hint_missing", "double_taps", "checked_users"]
    static let perScenarioCounters = ["users_started:", "dropped_arrivals:"]

    /// Whether `metric` names something a run of these scenarios records.
    static func isKnown(_ metric: String, scenarios: [String]) -> Bool {
        if journeyMetrics.contains(metric) || aggregates.contains(metric) || counters.contains(metric) { return true }
        if JourneyCatalog.all[metric] != nil || metric == JourneyResult.warmup { return true }
        var endpoint = metric.hasPrefix("http:") ? String(metric.dropFirst(5)) : metric
        if endpoint.hasPrefix(Endpoints.warmupPrefix) { endpoint = String(endpoint.dropFirst(Endpoints.warmupPrefix.count)) }
        if endpoint.hasPrefix("audit:") { endpoint = String(endpoint.dropFirst("audit:".count)) }  // the invariant audit's requests
        if Endpoints.templates.contains(endpoint) { return true }
        return perScenarioCounters.contains { p in metric.hasPrefix(p) && scenarios.contains(String(metric.dropFirst(p.count))) }
    }

    /// What to say about an unknown name: the kinds of names that are known.
    static let expected = "a journey metric (\(journeyMetrics.sorted().joined(separator: ", "))), an endpoint like "
        + "\"GET /home\" (optionally \"http:\" or \"warmup:\" first), \(aggregates.sorted().joined(separator: ", ")), a counter ("
        + "\(counters.sorted().joined(separator: ", ")), users_started:SCENARIO, dropped_arrivals:SCENARIO) or a journey name"
}

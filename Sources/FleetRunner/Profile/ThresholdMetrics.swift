import FleetClient
import FleetJourneys
import FleetMetrics

/// The names a threshold may be keyed by, so that `"foo": ["p99 < 10"]` is refused when the
/// profile is validated instead of failing (or, worse, passing unseen) after the run. Each kind
/// of name is parsed by its own type (`MetricName`, `CounterKey`, `JourneyName`, `EndpointLabel`);
/// the end-to-end run tests check that every name a real run records is known here.
enum ThresholdMetrics {
    /// All requests together.
    static let aggregates: Set<String> = ["http", "http_errors", "http_requests", "http_reqs"]

    /// Whether `metric` names something a run of these scenarios records.
    static func isKnown(_ metric: String, scenarios: [String]) -> Bool {
        if MetricName.known(metric) != nil || aggregates.contains(metric) { return true }
        if JourneyName(rawValue: metric) != nil || metric == JourneyResult.warmup { return true }
        if let counter = CounterKey(parsing: metric) { return counter.scenario.map(scenarios.contains) ?? true }
        let endpoint = metric.hasPrefix(EndpointResult.latencyPrefix) ? String(metric.dropFirst(EndpointResult.latencyPrefix.count)) : metric
        return EndpointLabel(parsing: endpoint) != nil
    }

    /// What to say about an unknown name: the kinds of names that are known.
    static let expected = "a journey metric (\(MetricName.recorded.map(\.rawValue).sorted().joined(separator: ", "))), an endpoint like "
        + "\"GET /home\" (optionally \"http:\" or \"warmup:\" first), \(aggregates.sorted().joined(separator: ", ")), a counter ("
        + "\(CounterKey.Name.runWide.map(\.rawValue).sorted().joined(separator: ", ")), "
        + "\(CounterKey.Name.perScenario.map { "\($0.rawValue):SCENARIO" }.joined(separator: ", "))) or a journey name"
}

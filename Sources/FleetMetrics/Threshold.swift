import Foundation

/// A pass/fail rule of a profile, like `p99 < 8000` (milliseconds) or `rate < 0.01`.
///
/// Grammar: `STAT OP NUMBER` with spaces optional. STAT is `pNN` (any percentile, `p99.9`),
/// `min`, `max`, `mean`, `med` (= p50) — in milliseconds of the corrected latency — or `count`
/// (samples or counter value) or `rate` (errors ÷ samples, a fraction). OP is `<`, `<=`, `>`, `>=`.
/// Thresholds are keyed by metric in the profile (`"assessment_turnaround": ["p99 < 8000"]`);
/// see `evaluate(metric:in:)` for the metric names it understands.
public struct Threshold: Sendable, Equatable {
    public enum Statistic: Sendable, Equatable {
        case percentile(Double), min, max, mean, count, rate
    }

    public enum Comparison: String, Sendable, CaseIterable {
        case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="

        func holds(_ a: Double, _ b: Double) -> Bool {
            switch self {
            case .less: return a < b
            case .lessOrEqual: return a <= b
            case .greater: return a > b
            case .greaterOrEqual: return a >= b
            }
        }
    }

    public var statistic: Statistic
    public var comparison: Comparison
    public var limit: Double
    /// The text it was parsed from, normalised (`p99 < 8000`).
    public var expression: String

    /// Parses `p99 < 8000`; a malformed rule gives a `MetricsError.threshold` saying what was expected.
    public static func parse(_ text: String) throws -> Threshold {
        let s = text.trimmingCharacters(in: .whitespaces)
        guard let opStart = s.firstIndex(where: { $0 == "<" || $0 == ">" }) else {
            throw MetricsError.threshold(expression: text, problem: "expected 'STAT OP NUMBER' with OP one of <, <=, >, >=")
        }
        let statText = s[..<opStart].trimmingCharacters(in: .whitespaces).lowercased()
        var rest = s[opStart...]
        let op: Comparison = rest.hasPrefix("<=") ? .lessOrEqual : rest.hasPrefix(">=") ? .greaterOrEqual
            : rest.hasPrefix("<") ? .less : .greater
        rest = rest.dropFirst(op.rawValue.count)
        let numberText = rest.trimmingCharacters(in: .whitespaces)
        guard let limit = Double(numberText), limit.isFinite else {
            throw MetricsError.threshold(expression: text, problem: "expected a number after '\(op.rawValue)', got '\(numberText)'")
        }
        let stat: Statistic
        switch statText {
        case "min": stat = .min
        case "max": stat = .max
        case "mean", "avg": stat = .mean
        case "med", "median": stat = .percentile(50)
        case "count": stat = .count
        case "rate": stat = .rate
        case let p where p.hasPrefix("p"):
            guard let v = Double(p.dropFirst()), v >= 0, v <= 100 else {
                throw MetricsError.threshold(expression: text, problem: "percentile '\(statText)' must be p0…p100")
            }
            stat = .percentile(v)
        case "":
            throw MetricsError.threshold(expression: text, problem: "missing statistic before '\(op.rawValue)' (p99, max, mean, count, rate, …)")
        default:
            throw MetricsError.threshold(expression: text, problem: "unknown statistic '\(statText)' (expected pNN, min, max, mean, med, count or rate)")
        }
        if stat == .rate && (limit < 0 || limit > 1) {
            throw MetricsError.threshold(expression: text, problem: "a rate is a fraction in 0…1, got \(numberText)")
        }
        return Threshold(statistic: stat, comparison: op, limit: limit, expression: "\(statText) \(op.rawValue) \(numberText)")
    }

    /// Parses a profile's `{metric: [rules]}` map and evaluates every rule, sorted by metric.
    public static func evaluateAll(_ rules: [String: [String]], in results: RunResults) throws -> [ThresholdVerdict] {
        var out: [ThresholdVerdict] = []
        for metric in rules.keys.sorted() {
            for rule in rules[metric]! { out.append(try parse(rule).evaluate(metric: metric, in: results)) }
        }
        return out
    }

    /// Evaluates against `results`. Metric names: a journey metric (`assessment_turnaround`), an
    /// endpoint (`GET /home` or `http:GET /home`), `http` / `http_errors` / `http_requests` (all
    /// requests together), a counter (`dropped_arrivals`; `count` only) or a journey name (its
    /// completed durations; `rate` = failed ÷ ended). A metric with no samples fails a latency rule.
    public func evaluate(metric: String, in results: RunResults) -> ThresholdVerdict {
        let source = ThresholdSource(metric: metric, results: results)
        let observed: Double?
        switch statistic {
        case .count: observed = Double(source.count)
        case .rate: observed = source.count == 0 ? 0 : Double(source.errors) / Double(source.count)
        case .percentile(let p): observed = source.histogram.flatMap { $0.isEmpty ? nil : Double($0.value(atPercentile: p)) / 1000 }
        case .min: observed = source.histogram.flatMap { $0.isEmpty ? nil : Double($0.min) / 1000 }
        case .max: observed = source.histogram.flatMap { $0.isEmpty ? nil : Double($0.max) / 1000 }
        case .mean: observed = source.histogram.flatMap { $0.isEmpty ? nil : $0.mean / 1000 }
        }
        let label = "\(metric) \(expression)"
        guard let value = observed else {
            return ThresholdVerdict(metric: metric, expression: expression, passed: false, observed: .nan, limit: limit,
                                    message: "\(label): no samples of '\(metric)' to judge")
        }
        let passed = comparison.holds(value, limit)
        let unit = isLatency ? " ms" : ""
        var message = "\(label): \(Self.format(value))\(unit)"
        if passed {
            message += " (passed)"
        } else {
            let by = abs(value - limit)
            message += ", \(comparison == .less || comparison == .lessOrEqual ? "over" : "under") by \(Self.format(by))\(unit)"
            if limit != 0 { message += String(format: " (%.1f %%)", by / abs(limit) * 100) }
        }
        return ThresholdVerdict(metric: metric, expression: expression, passed: passed, observed: value, limit: limit, message: message)
    }

    private var isLatency: Bool {
        switch statistic { case .count, .rate: return false; default: return true }
    }

    static func format(_ v: Double) -> String {
        if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
        return abs(v) < 1 ? String(format: "%.4f", v) : String(format: "%.1f", v)
    }
}

/// What a metric name stands for when judging a threshold: a histogram and error/sample counts.
private struct ThresholdSource {
    var histogram: Histogram?
    var count: Int64 = 0
    var errors: Int64 = 0

    init(metric: String, results: RunResults) {
        if let m = results.metric(metric) {
            histogram = m.corrected; count = m.corrected.count; errors = m.errors
        } else if let e = results.endpoint(metric.hasPrefix(EndpointResult.latencyPrefix) ? String(metric.dropFirst(EndpointResult.latencyPrefix.count)) : metric) {
            histogram = e.latency.corrected; count = e.latency.corrected.count; errors = e.latency.errors
        } else if ["http", "http_errors", "http_requests", "http_reqs"].contains(metric) {
            var all = Histogram()
            for e in results.endpoints { all.merge(e.latency.corrected); errors += e.latency.errors }
            histogram = all; count = all.count
        } else if let c = results.counters[metric] {
            count = c
        } else {
            let js = results.journeys.filter { $0.journey == metric }
            if !js.isEmpty {
                var d = Histogram()
                for j in js {
                    d.merge(j.duration)
                    count += j.completed + j.abandoned + j.failed
                    errors += j.failed
                }
                histogram = d
            }
        }
    }
}

extension RunResults {
    /// Judges the recorded thresholds again against these results (after merging shards, whose
    /// verdicts were each judged on a part of the data). A rule that no longer parses keeps its
    /// old verdict, marked failed, so it cannot pass unnoticed.
    public mutating func reevaluateThresholds() {
        meta.thresholds = meta.thresholds.map { old in
            guard let rule = try? Threshold.parse(old.expression) else {
                var v = old
                v.passed = false
                v.message = "\(old.metric) \(old.expression): cannot be parsed again"
                return v
            }
            return rule.evaluate(metric: old.metric, in: self)
        }
    }
}

import Foundation
import FleetMetrics

/// What a change is, judged against noise and a minimum effect.
public enum ChangeVerdict: String, Sendable, Codable, Equatable {
    case better, same, worse
}

/// One percentile of one metric in both runs, with the interval of their ratio.
public struct PercentileChange: Sendable, Codable, Equatable {
    /// 50, 90, 99.
    public var percentile: Double
    public var baseMicros: Int64
    public var newMicros: Int64
    /// new / base of the whole-run percentiles.
    public var ratio: Double
    /// Bootstrap interval of the ratio; nil when a run had fewer than 2 non-empty windows.
    public var low: Double?
    public var high: Double?
    public var verdict: ChangeVerdict
}

/// A latency metric (journey metric or endpoint) compared percentile by percentile.
public struct MetricComparison: Sendable, Codable, Equatable {
    public var name: String
    /// Headline metrics decide the run's regression verdict; endpoints are shown beside them.
    public var headline: Bool
    public var baseCount: Int64
    public var newCount: Int64
    public var percentiles: [PercentileChange]
}

/// A rate (HTTP errors, journey completion) compared with a two-proportion test.
public struct RateComparison: Sendable, Codable, Equatable {
    /// `http_errors`, `journey_completion`.
    public var name: String
    public var test: ProportionTest
    public var higherIsBetter: Bool
    public var verdict: ChangeVerdict
}

/// Everything `fleet compare` and the report's baseline section say about two runs.
public struct RunComparison: Sendable, Codable, Equatable {
    public var baseRunId: String
    public var newRunId: String
    public var minEffect: Double
    public var minAbsoluteMs: Double
    public var confidence: Double
    public var metrics: [MetricComparison]
    public var rates: [RateComparison]
    /// Requests per second of each run: shown beside the verdicts, not judged (the profile sets the load).
    public var baseRequestsPerSecond: Double
    public var newRequestsPerSecond: Double
    /// Why the runs may not be comparable (different profile hash or target), when `force` let them through.
    public var warnings: [String]

    /// One line per worse verdict that counts as a regression (headline metrics and rates).
    public var regressions: [String] {
        var out: [String] = []
        for m in metrics where m.headline {
            for p in m.percentiles where p.verdict == .worse {
                out.append("\(m.name) p\(Self.pct(p.percentile)): \(Self.ms(p.baseMicros)) → \(Self.ms(p.newMicros)) ms, ratio "
                           + "\(Self.r3(p.ratio)) [\(p.low.map(Self.r3) ?? "?"), \(p.high.map(Self.r3) ?? "?")]")
            }
        }
        for r in rates where r.verdict == .worse {
            out.append("\(r.name): \(Self.r4(r.test.baseRate)) → \(Self.r4(r.test.newRate)) (p = \(Self.sci(r.test.pValue)))")
        }
        return out
    }

    public var regressed: Bool { !regressions.isEmpty }

    static func pct(_ p: Double) -> String { p == p.rounded() ? String(Int(p)) : String(p) }
    static func ms(_ micros: Int64) -> String { String(format: "%.1f", Double(micros) / 1000) }
    static func r3(_ v: Double) -> String { String(format: "%.3f", v) }
    static func r4(_ v: Double) -> String { String(format: "%.4f", v) }
    static func sci(_ v: Double) -> String { String(format: "%.2g", v) }
}

/// Two runs that must not be compared without `--force`, and why.
public struct ComparisonRefused: Error, CustomStringConvertible, Equatable {
    public var reasons: [String]
    public var description: String { "runs are not comparable: " + reasons.joined(separator: "; ") + " (--force compares them anyway)" }
}



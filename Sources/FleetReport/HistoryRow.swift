import FleetMetrics

/// One run in the history: who, when, what, the verdict and its headline numbers.
public struct HistoryRow: Sendable, Equatable {
    public var runId: String
    /// RFC 3339 wall-clock start.
    public var startedAt: String
    public var profile: String
    public var gitRevision: String
    public var seed: UInt64
    public var target: String
    /// "passed", "failed" or "none" (no thresholds).
    public var verdict: String
    public var durationSeconds: Double
    public var requests: Int64
    public var errorRate: Double
    public var journeysCompleted: Int64
    public var turnaroundP50Ms: Double?
    public var turnaroundP99Ms: Double?
    public var settlementP50Ms: Double?
    public var settlementP99Ms: Double?
    public var generatorBehind: Bool

    public init(runId: String, startedAt: String, profile: String, gitRevision: String, seed: UInt64, target: String,
                verdict: String, durationSeconds: Double, requests: Int64, errorRate: Double, journeysCompleted: Int64,
                turnaroundP50Ms: Double?, turnaroundP99Ms: Double?, settlementP50Ms: Double?, settlementP99Ms: Double?,
                generatorBehind: Bool) {
        self.runId = runId
        self.startedAt = startedAt
        self.profile = profile
        self.gitRevision = gitRevision
        self.seed = seed
        self.target = target
        self.verdict = verdict
        self.durationSeconds = durationSeconds
        self.requests = requests
        self.errorRate = errorRate
        self.journeysCompleted = journeysCompleted
        self.turnaroundP50Ms = turnaroundP50Ms
        self.turnaroundP99Ms = turnaroundP99Ms
        self.settlementP50Ms = settlementP50Ms
        self.settlementP99Ms = settlementP99Ms
        self.generatorBehind = generatorBehind
    }

    /// The history row of a run's results (corrected percentiles, in ms).
    public init(results r: RunResults) {
        func p(_ name: MetricName, _ q: Double) -> Double? {
            guard let h = r.metric(name)?.corrected, !h.isEmpty else { return nil }
            return Double(h.value(atPercentile: q)) / 1000
        }
        let t = r.requestTotals
        self.init(runId: r.meta.runId, startedAt: r.meta.startedAt, profile: r.meta.profile,
                  gitRevision: r.meta.gitRevision, seed: r.meta.seed, target: r.meta.target,
                  verdict: r.meta.thresholds.isEmpty ? "none" : (r.meta.passed ? "passed" : "failed"),
                  durationSeconds: ReportFacts.durationSeconds(r), requests: t.requests,
                  errorRate: t.requests > 0 ? Double(t.errors) / Double(t.requests) : 0,
                  journeysCompleted: ReportFacts.journeyTotals(r).completed,
                  turnaroundP50Ms: p(.assessmentTurnaround, 50), turnaroundP99Ms: p(.assessmentTurnaround, 99),
                  settlementP50Ms: p(.settlement, 50), settlementP99Ms: p(.settlement, 99),
                  generatorBehind: !ReportFacts.generatorBehind(r).isEmpty)
    }
}

/// What one step of a capacity search measured and how it was judged.
public struct CapacityStep: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable {
        /// Every SLO met at steady state.
        case pass
        /// An SLO broken (or no steady state reached); `limit` names the SLO.
        case fail(limit: String)
        /// The generator fell behind: the step says nothing about the stack.
        case invalid(reason: String)

        public var label: String {
            switch self {
            case .pass: return "pass"
            case .fail: return "fail"
            case .invalid: return "invalid"
            }
        }

        public var detail: String {
            switch self {
            case .pass: return ""
            case .fail(let l): return l
            case .invalid(let r): return r
            }
        }
    }

    public var index: Int
    /// Offered arrival rate (users starting a visit per second).
    public var offeredRate: Double
    public var verdict: Verdict
    /// Seconds the step ran (warm-up included) and the measured windows used.
    public var durationS: Double = 0
    public var measuredWindows: Int = 0
    public var steady: Bool = false
    /// Achieved throughput in the measured windows: journeys completed and assessments settled per second.
    public var achievedJourneysPerS: Double = 0
    public var assessmentsPerS: Double = 0
    /// Percentiles over the measured windows (ms), and the spread of per-window p99 (min, max).
    public var turnaroundP50Ms: Double = 0
    public var turnaroundP99Ms: Double = 0
    public var turnaroundP99Spread: (min: Double, max: Double) = (0, 0)
    /// Samples behind the percentiles: 0 means none was measured (shown as —, never as 0 ms).
    public var turnaroundSamples: Int64 = 0
    public var settlementSamples: Int64 = 0
    public var settlementP50Ms: Double = 0
    public var settlementP99Ms: Double = 0
    public var settlementP99Spread: (min: Double, max: Double) = (0, 0)
    public var errorRate: Double = 0
    public var requests: Int64 = 0
    public var dropped: Int64 = 0
    public var lagP99Ms: Double = 0
    /// The bench process's CPU use in the measured windows, in cores.
    public var generatorCPU: Double = 0
    /// CPU the hypervisor gave other guests in the measured windows, in cores: a step measured
    /// while the host took the machine's CPU away is shown as such (it does not change the verdict).
    public var hostSteal: Double = 0
    /// Mean users alive in the measured windows (concurrent users).
    public var concurrentUsers: Double = 0
    /// What the step created on the stack, as the bench counted it.
    public var usersCreated: Int64 = 0
    public var sessionsCreated: Int64 = 0
    /// The most frequent error of the step ("POST /sessions 429 rate_limited × 12"), empty without errors.
    public var topError = ""
    /// Assessments the stack was still holding when the step ended, as the client saw it (submits
    /// accepted − assessments seen finished, whole step). Cancelling users does not empty the
    /// stack's queue: the next step waits for this to drain or it would measure this step's queue.
    public var backlog: Double = 0

    public init(index: Int, offeredRate: Double, verdict: Verdict) {
        self.index = index
        self.offeredRate = offeredRate
        self.verdict = verdict
    }

    public static func == (a: CapacityStep, b: CapacityStep) -> Bool {
        a.index == b.index && a.offeredRate == b.offeredRate && a.verdict == b.verdict
    }
}

import FleetCore

/// The profile's `capacity` section: how `fleet capacity` searches and what a step must meet.
///
/// Defaults follow the issue's question ("p99 turnaround under 8 s"); every figure can be set in
/// the profile (schema: profiles/README.md, "capacity").
public struct CapacitySettings: Sendable, Equatable {
    /// First offered arrival rate (journeys, i.e. arriving users, per second).
    public var startRate = 1.0
    /// Exponential phase: each passing step multiplies the rate by this.
    public var growth = 2.0
    /// Bisection ends when (lowest failing − highest passing) / highest passing is at most this.
    public var tolerance = 0.05
    /// No search goes below this rate (a stack failing even here is reported as such).
    public var minRate = 0.05
    /// Metrics window of a step, seconds; steady state and SLOs are judged on these windows.
    public var windowS = 3.0
    /// Windows at the start of each step thrown away (users ramping in, queues filling).
    public var warmupWindows = 3
    /// Windows that must agree for a step to be steady.
    public var steadyWindows = 4
    /// Bounds on one step's length (warm-up included), seconds.
    public var minStepS = 20.0
    public var maxStepS = 60.0
    /// Pause after a step so the stack works off what the cancelled users left queued.
    public var cooldownS = 5.0
    /// Relative band a window's throughput / turnaround p50 may stray from the steady mean.
    public var steadyBand = 0.25
    /// The SLOs a step is scored against (percentiles of the step's measured windows).
    public var turnaroundP99Ms = 8_000.0
    public var settlementP99Ms = 3_000.0
    public var maxErrorRate = 0.01
    public var maxDroppedArrivals: Int64 = 0
    /// Generator validity: scheduling lag p99 bound, and the share of one core the bench process
    /// may use on average before it counts as CPU-saturated.
    public var maxLagMs = 100.0
    public var maxGeneratorCPU = 0.9
    /// A step stops early (failed) when this many consecutive measured windows break an SLO by 50 %.
    public var earlyFailWindows = 2
    /// `max_users` of each step's arrivals.
    public var maxUsers = 20_000

    public init() {}

    static let known: Set<String> = ["start_rate", "growth", "tolerance", "min_rate", "window_s", "warmup_windows",
                                     "steady_windows", "min_step_s", "max_step_s", "cooldown_s", "steady_band", "slo",
                                     "max_lag_ms", "max_generator_cpu", "early_fail_windows", "max_users"]
    static let sloKeys: Set<String> = ["turnaround_p99_ms", "settlement_p99_ms", "error_rate", "dropped_arrivals"]

    /// Reads `capacity` (absent → defaults, with `max_lag_ms` taken from the profile).
    static func parse(_ v: JSONValue?, profileMaxLagMs: Double, _ r: ProfileReader) -> CapacitySettings? {
        var s = CapacitySettings()
        s.maxLagMs = profileMaxLagMs
        guard let v else { return nil }
        guard let o = r.object(v, "capacity", known: known) else { return nil }
        let p = "capacity"
        s.startRate = r.number(o, "start_rate", p, greaterThan: 0) ?? s.startRate
        s.growth = r.number(o, "growth", p, greaterThan: 1, atMost: 10) ?? s.growth
        s.tolerance = r.number(o, "tolerance", p, greaterThan: 0, atMost: 1) ?? s.tolerance
        s.minRate = r.number(o, "min_rate", p, greaterThan: 0) ?? s.minRate
        s.windowS = r.number(o, "window_s", p, greaterThan: 0, atMost: 60) ?? s.windowS
        s.warmupWindows = r.integer(o, "warmup_windows", p, atLeast: 0, atMost: 100) ?? s.warmupWindows
        s.steadyWindows = r.integer(o, "steady_windows", p, atLeast: 2, atMost: 100) ?? s.steadyWindows
        s.minStepS = r.number(o, "min_step_s", p, greaterThan: 0) ?? s.minStepS
        s.maxStepS = r.number(o, "max_step_s", p, greaterThan: 0) ?? s.maxStepS
        s.cooldownS = r.number(o, "cooldown_s", p, atLeast: 0) ?? s.cooldownS
        s.steadyBand = r.number(o, "steady_band", p, greaterThan: 0, atMost: 1) ?? s.steadyBand
        s.maxLagMs = r.number(o, "max_lag_ms", p, greaterThan: 0) ?? s.maxLagMs
        s.maxGeneratorCPU = r.number(o, "max_generator_cpu", p, greaterThan: 0, atMost: 64) ?? s.maxGeneratorCPU
        s.earlyFailWindows = r.integer(o, "early_fail_windows", p, atLeast: 1, atMost: 100) ?? s.earlyFailWindows
        s.maxUsers = r.integer(o, "max_users", p, atLeast: 1) ?? s.maxUsers
        if s.maxStepS < s.minStepS { r.issue("capacity.max_step_s", "must be >= min_step_s (\(s.minStepS))") }
        let minWindows = Double(s.warmupWindows + s.steadyWindows) * s.windowS
        if s.maxStepS < minWindows {
            r.issue("capacity.max_step_s", "must be >= (warmup_windows + steady_windows) × window_s (\(minWindows))")
        }
        if let slo = r.object(o["slo"], "capacity.slo", known: sloKeys) {
            let sp = "capacity.slo"
            s.turnaroundP99Ms = r.number(slo, "turnaround_p99_ms", sp, greaterThan: 0) ?? s.turnaroundP99Ms
            s.settlementP99Ms = r.number(slo, "settlement_p99_ms", sp, greaterThan: 0) ?? s.settlementP99Ms
            s.maxErrorRate = r.number(slo, "error_rate", sp, atLeast: 0, atMost: 1) ?? s.maxErrorRate
            s.maxDroppedArrivals = r.integer(slo, "dropped_arrivals", sp, atLeast: 0).map(Int64.init) ?? s.maxDroppedArrivals
        }
        return s
    }
}

import FleetMetrics

/// One metrics window of a capacity step, as the step runner saw it.
public struct StepWindow: Sendable {
    public var assessments: Int64 = 0
    /// Submits the stack accepted in the window: with `assessments`, the client-side view of the
    /// stack's assessment queue (accepted − finished = what it is still holding).
    public var submits: Int64 = 0
    public var journeysCompleted: Int64 = 0
    public var turnaround = Histogram()
    public var settlement = Histogram()
    /// The stack's own turnaround (its timestamps, when it gives them): not quantised by the
    /// client's poll interval, so a slowly growing queue shows in it first.
    public var serverTurnaround = Histogram()
    public var requests: Int64 = 0
    public var errors: Int64 = 0
    public var dropped: Int64 = 0
    public var lag = Histogram()
    /// Users alive at the window's end.
    public var activeUsers = 0
    /// CPU seconds the bench process used during the window.
    public var cpuSeconds = 0.0
    /// CPU seconds the hypervisor gave other guests during the window (the whole machine; 0 where
    /// the system does not say).
    public var hostStealSeconds = 0.0
    public var usersStarted: Int64 = 0
    public var sessionsCreated: Int64 = 0

    public init() {}
}

/// Judges a step from its windows: steady or not, failing early, and the final score.
///
/// All of it is a pure function of the windows, so that the decisions are tested with scripted
/// windows rather than by loading a stack.
public struct StepJudge: Sendable {
    public var settings: CapacitySettings
    /// Cores of the machine; `max_generator_cpu` is a share of them.
    public var cores: Double

    public init(settings: CapacitySettings, cores: Double) {
        self.settings = settings
        self.cores = cores
    }

    /// Steady: the last `steady_windows` windows agree on throughput and turnaround p50, and the
    /// users alive (the client-side queue: users waiting on assessments) are not growing.
    public func steady(_ measured: [StepWindow]) -> Bool {
        let n = settings.steadyWindows
        guard measured.count >= n else { return false }
        let last = Array(measured.suffix(n))
        let band = settings.steadyBand
        // Nothing finished: nothing says the stack keeps up.
        if last.allSatisfy({ $0.assessments == 0 }) { return false }
        // Over every measured window: a growing queue adds up linearly, noise only as √n. What
        // was in flight when measuring began balances what is in flight at its end when steady.
        if Self.queueGrowing(measured, band: band) { return false }
        let thr = last.map { Double($0.assessments) }
        let mThr = thr.reduce(0, +) / Double(n)
        // Poisson counts wander by about √m; a band alone would call a quiet step unsteady.
        let thrSlack = max(band * mThr, 3 * mThr.squareRoot())
        if thr.contains(where: { abs($0 - mThr) > thrSlack }) { return false }
        let p50 = last.compactMap { w -> Double? in
            let h = Self.queueSignal(w)
            return h.isEmpty ? nil : Double(h.value(atPercentile: 50)) / 1000
        }
        if p50.count == n {
            let m = p50.reduce(0, +) / Double(n)
            // 250 ms of absolute slack: a service time's worth of jitter is not a trend.
            if p50.contains(where: { abs($0 - m) > max(band * m, 250) }) { return false }
            if p50.last! > p50.first! * (1 + band) + 250 { return false }
        }
        // The trend over every measured window: just past the knee the queue (and the stack-side
        // turnaround) grows slowly but steadily, which a few windows' band cannot see.
        let all = measured.compactMap { w -> Double? in
            let h = Self.queueSignal(w)
            return h.isEmpty ? nil : Double(h.value(atPercentile: 50)) / 1000
        }
        if all.count >= n, Self.trendGrowth(all) > max(300, band * all.reduce(0, +) / Double(all.count)) { return false }
        let first = Double(last.first!.activeUsers), end = Double(last.last!.activeUsers)
        return end <= first * (1 + band) + 3 * first.squareRoot() + 1
    }

    /// The assessment queue grew over these windows: more submits accepted than assessments
    /// finished, beyond what Poisson noise and `band` allow.
    static func queueGrowing(_ ws: [StepWindow], band: Double) -> Bool {
        let submitted = Double(ws.reduce(Int64(0)) { $0 + $1.submits })
        let finished = Double(ws.reduce(Int64(0)) { $0 + $1.assessments })
        return submitted - finished > max(band * 0.5 * submitted, 2.5 * submitted.squareRoot() + 2)
    }

    /// The turnaround a queue shows in: the stack's own when it reports it, else the user-seen one.
    static func queueSignal(_ w: StepWindow) -> Histogram { w.serverTurnaround.isEmpty ? w.turnaround : w.serverTurnaround }

    /// The SLO broken by half again in each of the last `early_fail_windows` windows, if any:
    /// such a step cannot come back under its SLO, so it ends early.
    public func earlyFailure(_ measured: [StepWindow]) -> String? {
        if measured.reduce(Int64(0), { $0 + $1.dropped }) > settings.maxDroppedArrivals { return "dropped arrivals" }
        // A queue growing by more than the band of what is submitted: far past the knee, no
        // need to watch it grow for the rest of the step.
        if measured.count >= settings.steadyWindows {
            let submitted = Double(measured.reduce(Int64(0)) { $0 + $1.submits })
            let finished = Double(measured.reduce(Int64(0)) { $0 + $1.assessments })
            if submitted - finished > max(settings.steadyBand * submitted, 4 * submitted.squareRoot() + 4) {
                return "turnaround p99 (assessment queue growing)"
            }
        }
        let n = settings.earlyFailWindows
        guard measured.count >= n else { return nil }
        let last = measured.suffix(n)
        if last.allSatisfy({ !$0.turnaround.isEmpty && Double($0.turnaround.value(atPercentile: 99)) / 1000 > 1.5 * settings.turnaroundP99Ms }) {
            return "turnaround p99"
        }
        if last.allSatisfy({ !$0.settlement.isEmpty && Double($0.settlement.value(atPercentile: 99)) / 1000 > 1.5 * settings.settlementP99Ms }) {
            return "settlement p99"
        }
        if last.allSatisfy({ $0.requests >= 20 && Double($0.errors) / Double($0.requests) > 1.5 * settings.maxErrorRate }) {
            return "error rate"
        }
        return nil
    }

    /// The step's score over its measured windows.
    public func score(index: Int, rate: Double, measured: [StepWindow], steady: Bool, durationS: Double,
                      endedEarly: String? = nil) -> CapacityStep {
        var turn = Histogram(), settle = Histogram(), lag = Histogram()
        var s = CapacityStep(index: index, offeredRate: rate, verdict: .pass)
        var t99: [Double] = [], s99: [Double] = [], q50: [Double] = []
        var cpu = 0.0, users = 0.0, steal = 0.0
        for w in measured {
            turn.merge(w.turnaround)
            settle.merge(w.settlement)
            lag.merge(w.lag)
            if !w.turnaround.isEmpty { t99.append(Double(w.turnaround.value(atPercentile: 99)) / 1000) }
            let q = Self.queueSignal(w)
            if !q.isEmpty { q50.append(Double(q.value(atPercentile: 50)) / 1000) }
            if !w.settlement.isEmpty { s99.append(Double(w.settlement.value(atPercentile: 99)) / 1000) }
            s.requests += w.requests
            s.dropped += w.dropped
            cpu += w.cpuSeconds
            steal += w.hostStealSeconds
            users += Double(w.activeUsers)
            s.assessmentsPerS += Double(w.assessments)
            s.achievedJourneysPerS += Double(w.journeysCompleted)
            s.usersCreated += w.usersStarted
            s.sessionsCreated += w.sessionsCreated
        }
        let errors = measured.reduce(Int64(0)) { $0 + $1.errors }
        let span = Double(measured.count) * settings.windowS
        s.durationS = durationS
        s.measuredWindows = measured.count
        s.steady = steady
        if span > 0 {
            s.assessmentsPerS /= span
            s.achievedJourneysPerS /= span
            s.generatorCPU = cpu / span
            s.hostSteal = steal / span
            s.concurrentUsers = users / Double(measured.count)
        }
        s.errorRate = s.requests > 0 ? Double(errors) / Double(s.requests) : 0
        s.turnaroundP50Ms = Self.ms(turn, 50); s.turnaroundP99Ms = Self.ms(turn, 99)
        s.settlementP50Ms = Self.ms(settle, 50); s.settlementP99Ms = Self.ms(settle, 99)
        s.turnaroundSamples = Int64(turn.count); s.settlementSamples = Int64(settle.count)
        s.turnaroundP99Spread = (t99.min() ?? 0, t99.max() ?? 0)
        s.settlementP99Spread = (s99.min() ?? 0, s99.max() ?? 0)
        s.lagP99Ms = Self.ms(lag, 99)
        let rising = Self.growing(q50) || (q50.count >= 2 && Self.trendGrowth(q50) > max(300, settings.steadyBand * q50.reduce(0, +) / Double(q50.count)))
        s.verdict = verdict(s, turnaroundGrowing: rising, queueGrowing: Self.queueGrowing(measured, band: settings.steadyBand),
                            endedEarly: endedEarly)
        return s
    }

    /// Invalid first (a step the generator could not drive says nothing about the stack), then
    /// the SLOs, worst first, then steadiness.
    func verdict(_ s: CapacityStep, turnaroundGrowing: Bool, queueGrowing: Bool, endedEarly: String?) -> CapacityStep.Verdict {
        if s.lagP99Ms > settings.maxLagMs {
            return .invalid(reason: "scheduling lag p99 \(Int(s.lagP99Ms)) ms over the \(Int(settings.maxLagMs)) ms bound")
        }
        if s.generatorCPU > settings.maxGeneratorCPU * cores {
            return .invalid(reason: String(format: "generator CPU %.2f of %.0f cores (bound %.0f %%)", s.generatorCPU, cores,
                                           settings.maxGeneratorCPU * 100))
        }
        var broken: [(ratio: Double, name: String)] = []
        if s.turnaroundP99Ms > settings.turnaroundP99Ms { broken.append((s.turnaroundP99Ms / settings.turnaroundP99Ms, "turnaround p99")) }
        if s.settlementP99Ms > settings.settlementP99Ms { broken.append((s.settlementP99Ms / settings.settlementP99Ms, "settlement p99")) }
        if s.errorRate > settings.maxErrorRate { broken.append((s.errorRate / max(settings.maxErrorRate, 1e-9), "error rate")) }
        if s.dropped > settings.maxDroppedArrivals { broken.append((.infinity, "dropped arrivals")) }
        if let worst = broken.max(by: { $0.ratio < $1.ratio }) { return .fail(limit: worst.name) }
        if let e = endedEarly { return .fail(limit: e) }
        if s.assessmentsPerS == 0 { return .fail(limit: "turnaround p99 (no assessment finished in the measured windows)") }
        if !s.steady {
            if queueGrowing { return .fail(limit: "turnaround p99 (no steady state: assessment queue growing)") }
            return .fail(limit: turnaroundGrowing ? "turnaround p99 (no steady state: still growing)" : "no steady state")
        }
        return .pass
    }

    /// How much a series rises from its first to its last point on its least-squares line.
    static func trendGrowth(_ ys: [Double]) -> Double {
        let n = Double(ys.count)
        guard ys.count >= 2 else { return 0 }
        let mx = (n - 1) / 2, my = ys.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for (i, y) in ys.enumerated() { sxy += (Double(i) - mx) * (y - my); sxx += (Double(i) - mx) * (Double(i) - mx) }
        return sxy / sxx * (n - 1)
    }

    /// The second half of the per-window turnarounds above the first half by more than the band.
    static func growing(_ xs: [Double]) -> Bool {
        guard xs.count >= 4 else { return false }
        let h = xs.count / 2
        let a = xs.prefix(h).reduce(0, +) / Double(h), b = xs.suffix(h).reduce(0, +) / Double(h)
        return b > a * 1.25 && b - a > 250
    }

    static func ms(_ h: Histogram, _ p: Double) -> Double { h.isEmpty ? 0 : Double(h.value(atPercentile: p)) / 1000 }
}

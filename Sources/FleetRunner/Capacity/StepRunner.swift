import FleetCore
import FleetClient
import FleetHTTP
import FleetJourneys
import FleetMetrics
import Synchronization

/// Runs one capacity step at an offered rate and returns its score. The search is written against
/// this, so tests drive it with scripted outcomes.
public protocol CapacityStepRunner: Sendable {
    func runStep(index: Int, rate: Double, maxS: Double) async -> CapacityStep
}

/// A real step: the profile's first scenario as a constant arrival rate, through the same `Fleet`
/// a run uses, against a stack that stays up for the whole search (its database grows across
/// steps, as a real deployment's does). Each step has a recorder of its own; it is watched window
/// by window until steady state (or an early failure, or `max_step_s`), then its users are cancelled.
final class LiveStepRunner: CapacityStepRunner, Sendable {
    let profile: Profile
    let settings: CapacitySettings
    let clientSettings: ClientSettings
    let engine: HTTPEngine
    let recordings: any RecordingSource
    let say: @Sendable (String) -> Void
    let judge: StepJudge
    /// The step under way, and whether Ctrl-C came (a step started after it is cancelled at once).
    private let state = Mutex<(current: RunControl?, stopped: Bool)>((nil, false))

    init(profile: Profile, settings: CapacitySettings, clientSettings: ClientSettings, engine: HTTPEngine,
         recordings: any RecordingSource, cores: Double, say: @escaping @Sendable (String) -> Void) {
        self.profile = profile
        self.settings = settings
        self.clientSettings = clientSettings
        self.engine = engine
        self.recordings = recordings
        self.say = say
        judge = StepJudge(settings: settings, cores: cores)
    }

    /// Ctrl-C: the step under way ends now (and is scored from what it measured).
    func stop() {
        let c = state.withLock { s -> RunControl? in s.stopped = true; return s.current }
        c?.cancelAll()
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// The profile as one step runs it: the first scenario at `rate`, bounded by `max_step_s`;
    /// with a population section, its visitors (traits, cohorts, journeys by cohort) arrive instead
    /// of the scenario's own mix, so the knee is the population's.
    func stepProfile(rate: Double, maxS: Double, index: Int) -> Profile {
        var p = profile
        // Users of every step are new people: a seed of its own per step, or step 2 would sign in
        // step 1's installs again and replay their purchases (idempotency conflicts).
        p.seed = profile.seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        var s = profile.scenarios[0]
        s.startS = 0
        s.model = WorkloadModelConfig(model: ConstantArrivalRate(rate: rate, durationS: maxS, maxUsers: settings.maxUsers))
        s.visitors = profile.population
        p.scenarios = [s]
        p.durationS = maxS
        return p
    }

    func runStep(index: Int, rate: Double, maxS: Double) async -> CapacityStep {
        let w = settings.windowS
        let start = MonotonicClock.now() &+ 50_000_000
        let recorder = Recorder(startNanos: start, windowNanos: UInt64(w * 1e9))
        let client = APIClient(settings: clientSettings, engine: engine, recorder: recorder)
        let world = FleetWorld(client: client, recorder: recorder, recordings: recordings, behaviour: profile.behaviour, checker: nil)
        let control = RunControl()
        control.runUsers(on: engine)
        let stepProfile = stepProfile(rate: rate, maxS: maxS, index: index)
        let fleet = Fleet(profile: stepProfile, world: world, control: control)
        let alreadyStopped = state.withLock { s -> Bool in s.current = control; return s.stopped }
        if alreadyStopped { control.cancelAll() }
        let stall = profile.debug.map { GeneratorStall.schedule($0, start: start, executors: control.userExecutors, say: say) }
        let run = Task { await fleet.run(start: start) }

        var windows: [StepWindow] = []
        var probe = WindowProbe(recorder: recorder)
        var ended: String?
        var steady = false
        var k = 0
        while !control.arrivalsStopped {
            // A window is read a little after it closes, so that answers landing at its edge are in.
            guard await Pause.until(start &+ UInt64((Double(k + 1) * w + 0.2) * 1e9)) else { break }
            if control.arrivalsStopped { break }
            windows.append(probe.read(window: k, activeUsers: control.activeUsers))
            k += 1
            let measured = Array(windows.dropFirst(settings.warmupWindows))
            if let e = judge.earlyFailure(measured) { ended = e; break }
            let elapsed = Double(k) * w
            if elapsed >= settings.minStepS, judge.steady(measured) { steady = true; break }
            if elapsed + w > maxS { break }
        }
        let duration = Double(MonotonicClock.now() &- start) / 1e9
        control.cancelAll()
        stall?.cancel()
        _ = await control.drain(until: MonotonicClock.now() &+ 5_000_000_000)
        run.cancel()
        let measured = Array(windows.dropFirst(settings.warmupWindows))
        var step = judge.score(index: index, rate: rate, measured: measured, steady: steady, durationS: duration, endedEarly: ended)
        // Users and sessions created in the warm-up count too: they are in the stack's database.
        step.usersCreated = windows.reduce(0) { $0 + $1.usersStarted }
        step.sessionsCreated = windows.reduce(0) { $0 + $1.sessionsCreated }
        step.topError = probe.topError()
        step.backlog = max(0, Double(windows.reduce(Int64(0)) { $0 + $1.submits - $1.assessments }))
        if measured.isEmpty, isStopped { step.verdict = .invalid(reason: "interrupted before a window was measured") }
        return step
    }
}

/// Reads one window at a time out of a step's recorder: per-window histograms as recorded,
/// cumulative counters as differences from the previous read.
struct WindowProbe {
    let recorder: Recorder
    private var last = (journeys: Int64(0), dropped: Int64(0), users: Int64(0), sessions: Int64(0))
    private var lastCPU = ProcessStats.cpuSeconds()
    private var lastSteal = ProcessStats.hostStealSeconds()

    init(recorder: Recorder) { self.recorder = recorder }

    /// The step's most frequent error row, for the step line (what broke is the first question).
    func topError() -> String {
        let r = recorder.snapshot(RunMetadata(runId: "", profile: "", seed: 0, target: "", startedAt: ""))
        guard let e = r.errors.max(by: { $0.count < $1.count }) else { return "" }
        return "\(e.endpoint) \(e.status.map(String.init) ?? "transport") \(e.code ?? "") × \(e.count)"
    }

    mutating func read(window k: Int, activeUsers: Int) -> StepWindow {
        let r = recorder.snapshot(RunMetadata(runId: "", profile: "", seed: 0, target: "", startedAt: "",
                                              plannedDurationSeconds: 0, actualDurationSeconds: 0))
        var w = StepWindow()
        func win(_ name: MetricName) -> MetricWindow? { r.metric(name)?.windows.first { $0.index == k } }
        if let t = win(.assessmentTurnaround) { w.turnaround = t.corrected; w.assessments = t.corrected.count }
        if let s = win(.settlement) { w.settlement = s.corrected }
        if let s = win(.assessmentTurnaroundServer) { w.serverTurnaround = s.corrected }
        if let l = win(.schedulingLag) { w.lag = l.corrected }
        for e in r.endpoints {
            guard let ew = e.latency.windows.first(where: { $0.index == k }) else { continue }
            w.requests += ew.corrected.count
            w.errors += ew.errors
            if e.name == Route.submitAttempt.rawValue { w.submits += ew.corrected.count - ew.errors }
        }
        let journeys = r.measuredJourneys.reduce(Int64(0)) { $0 + $1.completed }
        let dropped = r.counter(.droppedArrivals) ?? 0
        let users = r.counterOverScenarios(.usersStarted)
        let sessions = (r.endpoint(Route.createSession.rawValue)?.statuses ?? [:]).filter { $0.key.hasPrefix("2") }.reduce(Int64(0)) { $0 + $1.value }
        w.journeysCompleted = journeys - last.journeys
        w.dropped = dropped - last.dropped
        w.usersStarted = users - last.users
        w.sessionsCreated = sessions - last.sessions
        last = (journeys, dropped, users, sessions)
        let cpu = ProcessStats.cpuSeconds()
        w.cpuSeconds = cpu - lastCPU
        lastCPU = cpu
        let steal = ProcessStats.hostStealSeconds()
        if let steal, let lastSteal { w.hostStealSeconds = max(0, steal - lastSteal) }
        lastSteal = steal
        w.activeUsers = activeUsers
        return w
    }
}

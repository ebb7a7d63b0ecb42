import Foundation
import FleetCore
import FleetHTTP
import FleetJourneys
import Synchronization

/// `fleet capacity`: one stack, one engine, and the search's steps one after another, bounded by
/// `--max-duration`; Ctrl-C ends the step under way and still writes what was found.
public final class CapacityRun: Sendable {
    public let options: RunOptions
    public let maxDurationS: Double
    let launcher: any StackLauncher
    let loadRecordings: @Sendable () throws -> any RecordingSource
    let say: @Sendable (String) -> Void
    /// The step runner once built, and whether Ctrl-C came (possibly before it was built).
    private let state = Mutex<(runner: LiveStepRunner?, stopped: Bool)>((nil, false))

    public init(options: RunOptions, maxDurationS: Double, launcher: any StackLauncher,
                recordings: @escaping @Sendable () throws -> any RecordingSource, say: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.maxDurationS = maxDurationS
        self.launcher = launcher
        self.loadRecordings = recordings
        self.say = say
    }

    public func interrupt() {
        let r = state.withLock { s -> LiveStepRunner? in s.stopped = true; return s.runner }
        say("stopping: ending the step under way; what was found is written")
        r?.stop()
    }

    var interrupted: Bool { state.withLock { $0.stopped } }

    public func run() async throws -> RunOutcome {
        let profile = options.profile
        guard !profile.scenarios.isEmpty else { throw RunnerError.badInput("\(profile.name): no scenario to search with") }
        let (base, stack) = try RunTarget.resolve(target: options.effectiveTarget, allowRemote: options.allowRemote,
                                                    settings: profile.stack, launcher: launcher, say: say)
        defer { stack?.stop() }
        let engineConfig = HTTPEngine.Configuration.forVirtualUsers(maxConnections: profile.client.connections)
        let engine = try HTTPEngine(configuration: engineConfig)
        if profile.client.connections == 0 { say(ConnectionBudget.summary(cap: engineConfig.maxConnections)) }
        defer { engine.shutdown() }
        try await Preflight.check(base: base, engine: engine, timeoutS: options.reachTimeoutS)
        let recordings: any RecordingSource
        do { recordings = try loadRecordings() } catch { throw RunnerError.badInput("\(error)") }

        let settings = profile.capacity ?? CapacitySettings.defaults(maxLagMs: profile.maxLagMs)
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        let live = LiveStepRunner(profile: profile, settings: settings, clientSettings: profile.client.settings(baseURL: base),
                                  engine: engine, recordings: recordings, cores: cores, say: say)
        let already = state.withLock { s -> Bool in s.runner = live; return s.stopped }
        if already { live.stop() }
        for line in profile.populationLines() { say(line) }
        say(Self.mixLine(profile))
        say("capacity search: profile \(profile.name), target \(base), start \(CapacityFormat.rate(settings.startRate)) users/s, "
            + "tolerance \(Int(settings.tolerance * 100)) %, at most \(Int(maxDurationS)) s")
        let startWall = WallClock.nowMillis()
        let (search, stop) = await Self.search(settings: settings, runner: live, budgetS: maxDurationS,
                                               isStopped: { [self] in interrupted }, say: say)
        let elapsed = Double(WallClock.nowMillis() - startWall) / 1000
        let result = search.result(stopReason: stop)
        // The embedded stack says how big its database grew; another server's is unknown.
        let database = stack == nil ? nil : await StackStats.fetch(base: base, engine: engine)
        var report = CapacityReport(profile: profile, result: result, target: stack == nil ? base : "embedded (\(base))",
                                    elapsedS: elapsed, startedAtMs: startWall)
        report.database = database
        let dir = options.outDir + "/" + RunSession.runId(profile: "capacity-" + profile.name, wallMillis: startWall, seed: profile.seed)
        let index = try report.write(to: dir)
        for line in report.lines { say(line) }
        say("report: \(index)")
        let code: Int32 = interrupted ? ExitCode.interrupted
            : (result.sustainable != nil && !result.generatorBound ? ExitCode.success : ExitCode.failure)
        return RunOutcome(reportDir: dir, indexPath: index, exitCode: code, summaryLines: report.lines)
    }

    /// The search loop, apart from stacks and files: steps from `runner` until the search
    /// converges, the budget would be overrun, or `isStopped`.
    public static func search(settings: CapacitySettings, runner: any CapacityStepRunner, budgetS: Double,
                              isStopped: @Sendable () -> Bool, say: @Sendable (String) -> Void) async -> (CapacitySearch, String?) {
        var search = CapacitySearch(settings: settings)
        let start = MonotonicClock.now()
        var index = 0
        while let rate = search.nextRate() {
            if isStopped() { return (search, "interrupted") }
            let left = budgetS - Double(MonotonicClock.now() &- start) / 1e9
            let stepMax = min(settings.maxStepS, left)
            if stepMax < settings.minStepS { return (search, "time budget (--max-duration \(Int(budgetS)) s) spent") }
            index += 1
            let step = await runner.runStep(index: index, rate: rate, maxS: stepMax)
            // A step cut short by Ctrl-C says nothing either way: not scored, not an upper bound.
            if isStopped() {
                say("step \(index): offered \(CapacityFormat.rate(rate)) users/s → interrupted, not scored")
                return (search, "interrupted")
            }
            search.record(step)
            say(CapacityReport.stepLine(step))
            if search.nextRate() != nil {
                let drainRate = search.steps.map(\.assessmentsPerS).max() ?? 0
                let pause = cooldown(after: step, settings: settings, drainRate: drainRate)
                if pause > settings.cooldownS + 1 {
                    say(String(format: "cooldown %.0f s: the stack still holds ~%.0f assessments from step %d", pause, step.backlog, index))
                }
                if pause > 0 { await Pause.sleep(seconds: pause) }
            }
        }
        if search.highestPass == nil, search.lowestNonPass != nil { return (search, "no rate down to min_rate passed") }
        return (search, nil)
    }
}

extension CapacityRun {
    /// `cooldown_s`; after a step that did not pass, plus the time the stack needs to work off
    /// the step's backlog at the best rate it finished assessments in any step so far (a lower
    /// bound of its capacity); at most 120 s more. After a passing step what is in flight is
    /// work in service, done within a turnaround.
    static func cooldown(after step: CapacityStep, settings: CapacitySettings, drainRate: Double) -> Double {
        if step.verdict == .pass { return settings.cooldownS }
        let drain = step.backlog / max(drainRate, step.assessmentsPerS, 0.5)
        return settings.cooldownS + min(120, drain * 1.2)
    }
}

extension CapacityRun {
    /// Which users a step offers: the population's visitors, or the first scenario's mix.
    static func mixLine(_ profile: Profile) -> String {
        if let p = profile.population {
            let total = max(p.cohorts.values.reduce(0, +), 1e-12)
            let cohorts = p.cohorts.sorted { $0.key < $1.key }.map { "\($0.key) \(Int(($0.value / total * 100).rounded())) %" }
                .joined(separator: ", ")
            return "capacity: each step's arrivals are new users of the population (\(cohorts); journeys by cohort, locales, "
                + "timezones, app versions as the population draws them); a cohort's warm-up adds load a real returning visit "
                + "does not have, so the figure errs low"
        }
        let s = profile.scenarios[0]
        let others = profile.scenarios.count > 1 ? "; scenarios after the first are not offered" : ""
        let journeys = s.journeys.isEmpty ? "each cohort's default mix" : s.journeys.keys.map(\.rawValue).sorted().joined(separator: ", ")
        return "capacity: each step offers scenario \(s.name) (\(journeys))\(others)"
    }
}

extension CapacitySettings {
    static func defaults(maxLagMs: Double) -> CapacitySettings {
        var s = CapacitySettings()
        s.maxLagMs = maxLagMs
        return s
    }
}

import Foundation
import FleetCheck
import FleetClient
import FleetCore
import FleetHTTP
import FleetJourneys
import FleetMetrics
import FleetReport
import Synchronization

/// One run from start to report: stack, engine, recorder, fleet, progress, stop, report.
///
/// Stopping is the part a load tester's user cares about most: the duration cap (or a first
/// Ctrl-C) stops arrivals and gives users in flight `grace_s` to finish; then (or on a second
/// Ctrl-C) every user is cancelled, dropping its transfers. Whatever was measured is reported.
public final class RunSession: Sendable {
    public let options: RunOptions
    let launcher: any StackLauncher
    /// Loads the corpus; called after the target answered, so a wrong URL fails in seconds.
    let loadRecordings: @Sendable () throws -> any RecordingSource
    let say: @Sendable (String) -> Void
    let control = RunControl()
    private let interrupts = Atomic<Int>(0)

    public init(options: RunOptions, launcher: any StackLauncher, recordings: @escaping @Sendable () throws -> any RecordingSource,
                say: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.launcher = launcher
        self.loadRecordings = recordings
        self.say = say
    }

    /// Ctrl-C / SIGTERM: the first stops arrivals (grace for users in flight), the second cancels all.
    public func interrupt() {
        let n = interrupts.add(1, ordering: .relaxed).newValue
        if n == 1 {
            say("stopping: no new users; \(Int(options.profile.graceS)) s for users in flight (Ctrl-C again to stop now)")
            control.stopArrivals()
            let control = self.control, grace = options.profile.graceS
            Task {
                await Pause.sleep(seconds: grace)
                control.cancelAll()
            }
        } else {
            say("stopping now")
            control.cancelAll()
        }
    }

    var interrupted: Bool { interrupts.load(ordering: .relaxed) > 0 }

    /// The run, in the order a newcomer reads it: where (target, engine, corpus), who (the
    /// wiring every user shares, `RunWiring`), the walk (arrivals, the cap, grace, drain), the
    /// judgement (audit, verdict) and the report. Progress and the result stream run throughout.
    public func run() async throws -> RunOutcome {
        let profile = options.profile
        let target = try await connect()
        defer { target.stack?.stop(); target.engine.shutdown() }
        let barrier = await StartBarrier.wait(until: options.startAtMillis, control: control, say: say)
        let wiring = RunWiring(profile: profile, options: options, target: target, start: barrier, control: control)
        let metricsEndpoint = try wiring.metricsEndpoint(say: say)
        defer { metricsEndpoint?.stop() }
        say("run \(wiring.runId): profile \(profile.name), seed \(profile.seed), target \(target.base), planned \(Int(profile.plannedDurationS)) s"
            + (wiring.shard.isWhole ? "" : ", shard \(wiring.shard) (users ≡ \(wiring.shard.index) mod \(wiring.shard.count))"))
        for line in profile.populationLines() { say(line) }

        // The host's steal counts from here: the health samples carry what it took during the run.
        let stealAtStart = ProcessStats.hostStealSeconds()
        let cpuAtStart = ProcessStats.cpuSeconds()
        let monitor = Task {
            await self.monitor(recorder: wiring.recorder, engine: target.engine, planned: profile.plannedDurationS, start: wiring.start,
                               windowNanos: wiring.windowNanos, stealAtStart: stealAtStart, stream: wiring.streamer(say: say))
        }
        await walk(wiring)
        let auditNotes = await audit(wiring)
        // Nothing more goes to the stack: a child stack's shutdown (SIGTERM; at 200,000 users it
        // drained a backlogged database queue for ~5 s) overlaps the report instead of following it.
        target.stack?.beginStop()
        monitor.cancel()
        sampleHealth(recorder: wiring.recorder, engine: target.engine, stealAtStart: stealAtStart)

        let results = conclude(wiring, barrier: barrier, notes: auditNotes, cpuAtStart: cpuAtStart)
        for line in profile.populationLines(after: results) { say(line) }
        return try Reporting.write(results, options: options, say: say, interrupted: interrupted) { dir in
            try wiring.checker?.writeTraces(to: dir)
            if let json = self.options.profileJSON {
                try Data(json.serializedBytes()).write(to: URL(fileURLWithPath: dir + "/profile.json"), options: .atomic)
            }
        }
    }

    /// Where the run goes: the given target or a fresh embedded stack (loopback unless
    /// `--allow-remote`), an engine, a target that answers, and the recordings. Whatever was
    /// started is stopped again if a later part fails.
    private func connect() async throws -> RunTargetConnection {
        let profile = options.profile
        let (base, stack) = try RunTarget.resolve(target: options.effectiveTarget, allowRemote: options.allowRemote,
                                                    settings: profile.stack, launcher: launcher, say: say)
        var engine: HTTPEngine?
        do {
            if let a = options.sourceAddress, !Loopback.isLoopbackAddress(a), !options.allowRemote {
                throw RunnerError.failed("--source-address \(a) is not a loopback address; pass --allow-remote to send from another interface")
            }
            var engineConfig = HTTPEngine.Configuration.forVirtualUsers(maxConnections: profile.client.connections)
            engineConfig.sourceAddress = options.sourceAddress
            let e = try HTTPEngine(configuration: engineConfig)
            engine = e
            if profile.client.connections == 0 { say(ConnectionBudget.summary(cap: engineConfig.maxConnections)) }
            control.runUsers(on: e)
            try await Preflight.check(base: base, engine: e, timeoutS: options.reachTimeoutS)
            let recordings: any RecordingSource
            let loadStart = MonotonicClock.now()
            do { recordings = try loadRecordings() } catch { throw RunnerError.badInput("\(error)") }
            var ready = "recordings ready in \(Int(Double(MonotonicClock.now() - loadStart) / 1e6)) ms"
            if let c = recordings as? CorpusRecordings {
                ready += " (\(c.corpus.clips.count) clips, \(c.corpus.remembered) remembered from the last check)"
            }
            say(ready)
            return RunTargetConnection(base: base, stack: stack, engine: e, recordings: recordings)
        } catch {
            engine?.shutdown()
            stack?.stop()
            throw error
        }
    }

    /// Arrivals until the duration cap (or a stop), users in flight until grace ends, then
    /// everyone left cancelled.
    private func walk(_ w: RunWiring) async {
        let profile = options.profile, start = w.start
        let stall = profile.debug.map { GeneratorStall.schedule($0, start: start, executors: control.userExecutors, say: say) }
        let stopper = Task { await self.enforceCap(start: start) }
        await w.fleet.run(start: start)
        // Arrivals are over. Users still walking may finish until the duration cap plus the
        // grace period (`enforceCap` cancels them then, or a second Ctrl-C does sooner).
        control.stopArrivals()
        let capEnd = start &+ UInt64((profile.durationS + profile.graceS) * 1e9)
        if !(await control.drain(until: capEnd &+ 1_000_000_000)) {
            control.cancelAll()
            _ = await control.drain(until: MonotonicClock.now() &+ 5_000_000_000)
        }
        stopper.cancel()
        stall?.cancel()
    }

    /// What the run left in doubt, settled through the API before judging (bounded); its notes.
    private func audit(_ w: RunWiring) async -> [String] {
        guard let checker = w.checker else { return [] }
        var notes: [String] = []
        if interrupted {
            notes.append("audit: skipped (the run was interrupted); attempts left in flight were not polled")
        } else {
            let (_, skipped) = await checker.audit(client: w.client, say: say)
            if skipped > 0 {
                notes.append("audit: bounded by audit_max_s (\(Int(options.profile.checks.auditMaxS)) s): \(skipped) users were not re-read")
            }
        }
        w.recorder.count(.checkedUsers, Int64(checker.userCount))
        return notes
    }

    /// The results as reported: the recorder's snapshot with its metadata, notes, violations and verdict.
    private func conclude(_ w: RunWiring, barrier: StartBarrier.Start, notes auditNotes: [String], cpuAtStart: Double) -> RunResults {
        let profile = options.profile, shard = w.shard, checker = w.checker
        let actual = Double(MonotonicClock.now() &- w.start) / 1e9
        var meta = w.meta(actual)
        meta.startCpuSeconds = cpuAtStart
        if interrupted { meta.notes.append("interrupted: the run was stopped by a signal before its planned end") }
        meta.notes += auditNotes
        if !shard.isWhole {
            meta.shard = ShardInfo(index: shard.index, count: shard.count, profileDigest: options.profileDigest,
                                   startAt: options.startAtMillis.map { RFC3339.format(millis: $0) },
                                   lateByMillis: barrier.lateMillis, sourceAddress: options.sourceAddress,
                                   bootId: ProcessStats.kernelBootId())
        }
        if barrier.lateMillis > 0 {
            meta.notes.append("started late: \(barrier.lateMillis) ms after the start barrier \(RFC3339.format(millis: options.startAtMillis!))")
        }
        if let d = profile.debug {
            meta.notes.append("debug: the generator was stalled on purpose for \(d.stallS) s at \(d.stallAtS) s (profile \"debug\")")
        }
        if let checker, checker.droppedViolations > 0 {
            meta.notes.append("\(checker.droppedViolations) more violations were found than the \(profile.checks.maxViolations) kept")
        }
        if checker == nil { meta.notes.append("checks: off (profile \"checks\": {\"enabled\": false}); no invariant was checked") }
        let violations = checker?.violations ?? []
        if checker != nil && violations.isEmpty {
            meta.notes.append("invariants: all \(Invariant.allCases.count) checked, none violated")
        }
        var snapshot = w.recorder.snapshot(meta)
        if let steal = snapshot.hostStealNote() { snapshot.meta.notes.append(steal) }
        snapshot.violations = violations
        return Verdict.apply(profile: profile, to: snapshot)
    }

    /// The duration cap: past `duration_s` no user starts, and users get `grace_s` to finish.
    private func enforceCap(start: UInt64) async {
        let p = options.profile
        guard await Pause.until(start &+ UInt64(p.durationS * 1e9)) else { return }
        control.stopArrivals()
        guard await Pause.until(start &+ UInt64((p.durationS + p.graceS) * 1e9)) else { return }
        control.cancelAll()
    }

    /// Generator health every second, and a progress line every `progressEveryS`.
    private func monitor(recorder: Recorder, engine: HTTPEngine, planned: Double, start: UInt64, windowNanos: UInt64,
                         stealAtStart: Double?, stream: (@Sendable (UInt64) -> Void)?) async {
        var line = ProgressLine()
        var streamed: UInt64 = 0
        var nextProgress = MonotonicClock.now() &+ UInt64(options.progressEveryS * 1e9)
        // Ticks fall just after the run's window boundaries, so that a window is streamed as soon
        // as it closes (a hard stop then loses only the window that was open).
        var tick = start &+ 5_000_000
        while !Task.isCancelled {
            tick &+= 1_000_000_000
            // After a stall, resume the once-a-second rhythm (on the same grid) instead of
            // catching up in a burst.
            let late = MonotonicClock.now()
            if tick &+ 1_000_000_000 < late { tick = start &+ (late &- start) / 1_000_000_000 * 1_000_000_000 &+ 1_005_000_000 }
            guard await Pause.until(tick) else { return }
            sampleHealth(recorder: recorder, engine: engine, stealAtStart: stealAtStart)
            let now = MonotonicClock.now()
            // A window closed since the last append: stream the results up to it.
            if let stream, now > start, windowNanos > 0, (now &- start) / windowNanos > streamed {
                streamed = (now &- start) / windowNanos
                stream(now)
            }
            if now >= nextProgress {
                // On a fixed grid (5, 10, 15 s …), not "5 s after the last line", so lines do not drift
                // when the monitor wakes late; a long stall skips lines rather than bunching them.
                let every = UInt64(options.progressEveryS * 1e9)
                nextProgress &+= every
                if nextProgress <= now { nextProgress = now &+ every }
                say(line.render(recorder.liveTotals(), planned: planned, active: control.activeUsers, inFlight: engine.inFlight,
                                now: now))
            }
        }
    }

    private func sampleHealth(recorder: Recorder, engine: HTTPEngine, stealAtStart: Double?) {
        // Whole milliseconds: the counter ticks in 10 ms, and a difference of two large sums is not exact.
        let steal = stealAtStart.flatMap { base in ProcessStats.hostStealSeconds().map { Swift.max(0, (($0 - base) * 1000).rounded() / 1000) } }
        recorder.healthSample(activeUsers: control.activeUsers, inFlight: engine.inFlight,
                              cpuSeconds: ProcessStats.cpuSeconds(), rssBytes: ProcessStats.residentBytes(),
                              hostStealSeconds: steal)
    }

    static func runId(profile: String, wallMillis: Int64, seed: UInt64) -> String {
        let t = RFC3339.format(millis: wallMillis)  // 2026-11-29T15:08:48.123Z
        let compact = t.prefix(19).filter { $0 != "-" && $0 != ":" }.replacingT()
        return "\(profile)-\(compact)-\(seed)"
    }
}

extension String {
    fileprivate func replacingT() -> String { String(map { $0 == "T" ? "-" : $0 }) }
}

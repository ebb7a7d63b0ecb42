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

    public func run() async throws -> RunOutcome {
        let profile = options.profile
        let (base, stack) = try RunTarget.resolve(target: options.effectiveTarget, allowRemote: options.allowRemote,
                                                    settings: profile.stack, launcher: launcher, say: say)
        defer { stack?.stop() }
        if let a = options.sourceAddress, !Loopback.isLoopbackAddress(a), !options.allowRemote {
            throw RunnerError.failed("--source-address \(a) is not a loopback address; pass --allow-remote to send from another interface")
        }

        var engineConfig = HTTPEngine.Configuration()
        engineConfig.maxConnections = profile.client.connections
        engineConfig.sourceAddress = options.sourceAddress
        let engine = try HTTPEngine(configuration: engineConfig)
        defer { engine.shutdown() }
        try await Preflight.check(base: base, engine: engine, timeoutS: options.reachTimeoutS)
        let recordings: any RecordingSource
        let loadStart = MonotonicClock.now()
        do { recordings = try loadRecordings() } catch { throw RunnerError.badInput("\(error)") }
        var ready = "recordings ready in \(Int(Double(MonotonicClock.now() - loadStart) / 1e6)) ms"
        if let c = recordings as? CorpusRecordings {
            ready += " (\(c.corpus.clips.count) clips, \(c.corpus.remembered) remembered from the last check)"
        }
        say(ready)

        let clientSettings = profile.client.settings(baseURL: base)
        let shard = options.shard
        let barrier = await StartBarrier.wait(until: options.startAtMillis, control: control, say: say)
        let startWall = barrier.wallMillis, start = barrier.instant
        let recorder = Recorder(startNanos: start, windowNanos: UInt64(profile.windowS * 1e9))
        let client = APIClient(settings: clientSettings, engine: engine, recorder: recorder)
        let checker = profile.checks.enabled
            ? FleetChecker(settings: profile.checks, seed: profile.seed, clock: RunClock(startMono: start, startWallMs: startWall))
            : nil
        let world = FleetWorld(client: client, recorder: recorder, recordings: recordings, behaviour: profile.behaviour,
                               checker: checker)
        let fleet = Fleet(profile: profile, world: world, control: control, shard: shard)
        var metricsEndpoint: MetricsEndpoint?
        if let listen = options.metricsListen {
            let control = self.control
            let e = try MetricsEndpoint(listen: listen, contentType: PrometheusText.contentType) {
                PrometheusText.render(recorder.liveView(), activeUsers: control.activeUsers, inFlight: engine.inFlight)
            }
            metricsEndpoint = e
            say("metrics: \(e.url)")
        }
        defer { metricsEndpoint?.stop() }
        let planned = profile.plannedDurationS
        // Shards started at one barrier share the time part, so their folders sort together.
        let runId = Self.runId(profile: profile.name, wallMillis: options.startAtMillis ?? startWall, seed: profile.seed)
            + (shard.isWhole ? "" : "-shard-\(shard.index)-of-\(shard.count)")
        say("run \(runId): profile \(profile.name), seed \(profile.seed), target \(base), planned \(Int(planned)) s"
            + (shard.isWhole ? "" : ", shard \(shard) (users ≡ \(shard.index) mod \(shard.count))"))
        for line in profile.populationLines() { say(line) }

        let target = stack == nil ? base : "embedded (\(base))"
        let git = GitRevision.current()
        let makeMeta: @Sendable (Double) -> RunMetadata = { actual in
            RunMetadata(runId: runId, profile: profile.name, seed: profile.seed, target: target,
                        startedAt: RFC3339.format(millis: startWall), plannedDurationSeconds: planned,
                        actualDurationSeconds: actual, gitRevision: git,
                        lagBoundMicros: Int64(profile.maxLagMs * 1000), profileHash: profile.hash,
                        minEffect: profile.minEffect, minAbsoluteMs: profile.minAbsoluteMs)
        }
        // Streamed as windows close, so that a hard stop loses at most the last one.
        let stream: ResultStream?
        do { stream = try ResultStream(directory: options.outDir + "/" + runId) } catch {
            say("warning: results are not streamed (\(error)); a hard stop would lose the run")
            stream = nil
        }
        let windowNanos = UInt64(profile.windowS * 1e9)
        var streamer: (@Sendable (UInt64) -> Void)? = nil
        if let stream {
            let profile = self.options.profile
            streamer = { @Sendable (now: UInt64) -> Void in
                var meta = makeMeta(Double(now &- start) / 1e9)
                let at = Double((now &- start) / windowNanos * windowNanos) / 1e9
                meta.notes.append("recovered: streamed at \(at) s; the run stopped before writing its report, and "
                                  + "what came after is lost (totals may hold a sliver of the last, open window)")
                // The window `now` falls in is still open: stream through the one before it.
                stream.append(Verdict.apply(profile: profile, to: recorder.snapshot(meta)),
                              through: Int((now &- start) / windowNanos) - 1)
            }
        }
        let monitor = Task {
            await self.monitor(recorder: recorder, engine: engine, planned: planned, start: start, windowNanos: windowNanos,
                               stream: streamer)
        }
        let stall = profile.debug.map { GeneratorStall.schedule($0, start: start, say: say) }
        let stopper = Task { await self.enforceCap(start: start) }
        await fleet.run(start: start)
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
        // What the run left in doubt is settled through the API before judging (bounded).
        var auditNotes: [String] = []
        if let checker {
            if interrupted { auditNotes.append("audit: skipped (the run was interrupted); attempts left in flight were not polled") }
            else { await checker.audit(client: client, say: say) }
            recorder.count(.checkedUsers, Int64(checker.userCount))
        }
        monitor.cancel()
        sampleHealth(recorder: recorder, engine: engine)

        let actual = Double(MonotonicClock.now() &- start) / 1e9
        var meta = makeMeta(actual)
        if interrupted { meta.notes.append("interrupted: the run was stopped by a signal before its planned end") }
        meta.notes += auditNotes
        if !shard.isWhole {
            meta.shard = ShardInfo(index: shard.index, count: shard.count, profileDigest: options.profileDigest,
                                   startAt: options.startAtMillis.map { RFC3339.format(millis: $0) },
                                   lateByMillis: barrier.lateMillis, sourceAddress: options.sourceAddress)
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
        var snapshot = recorder.snapshot(meta)
        snapshot.violations = violations
        let results = Verdict.apply(profile: profile, to: snapshot)
        for line in profile.populationLines(after: results) { say(line) }
        return try Reporting.write(results, options: options, say: say, interrupted: interrupted) { dir in
            try checker?.writeTraces(to: dir)
            if let json = self.options.profileJSON {
                try Data(json.serializedBytes()).write(to: URL(fileURLWithPath: dir + "/profile.json"), options: .atomic)
            }
        }
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
                         stream: (@Sendable (UInt64) -> Void)?) async {
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
            sampleHealth(recorder: recorder, engine: engine)
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

    private func sampleHealth(recorder: Recorder, engine: HTTPEngine) {
        recorder.healthSample(activeUsers: control.activeUsers, inFlight: engine.inFlight,
                              cpuSeconds: ProcessStats.cpuSeconds(), rssBytes: ProcessStats.residentBytes())
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

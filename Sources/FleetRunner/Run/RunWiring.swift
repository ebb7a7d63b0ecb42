import FleetCheck
import FleetClient
import FleetCore
import FleetHTTP
import FleetJourneys
import FleetMetrics
import FleetReport

/// Where a run goes, once it answered: its base URL, the embedded stack if one was started, the
/// engine, and the recordings its users upload.
struct RunTargetConnection: Sendable {
    let base: String
    let stack: (any RunningStack)?
    let engine: HTTPEngine
    let recordings: any RecordingSource

    /// The target as results name it.
    var label: String { stack == nil ? base : "embedded (\(base))" }
}

/// What every user of one run shares, built in one place: the recorder (windows from the start
/// instant), the API client over the engine, the invariant checker (unless checks are off), the
/// world the journeys see, and the fleet that schedules the users; with the run's id and the
/// metadata every snapshot carries.
struct RunWiring: Sendable {
    let target: RunTargetConnection
    let start: UInt64
    let startWall: Int64
    let shard: Shard
    let windowNanos: UInt64
    let recorder: Recorder
    let client: APIClient
    let checker: FleetChecker?
    let fleet: Fleet
    let runId: String
    let meta: @Sendable (Double) -> RunMetadata
    let outDir: String
    let metricsListen: String?
    let control: RunControl
    let profile: Profile

    init(profile: Profile, options: RunOptions, target: RunTargetConnection, start barrier: StartBarrier.Start, control: RunControl) {
        self.profile = profile
        self.target = target
        self.control = control
        start = barrier.instant
        startWall = barrier.wallMillis
        shard = options.shard
        windowNanos = UInt64(profile.windowS * 1e9)
        outDir = options.outDir
        metricsListen = options.metricsListen
        recorder = Recorder(startNanos: start, windowNanos: windowNanos)
        client = APIClient(settings: profile.client.settings(baseURL: target.base), engine: target.engine, recorder: recorder)
        checker = profile.checks.enabled
            ? FleetChecker(settings: profile.checks, seed: profile.seed, clock: RunClock(startMono: start, startWallMs: startWall))
            : nil
        // The zones visitors sign in with, looked up before any user starts: the checker reads
        // each user's zone, and Foundation reads and parses a zone's tzdata file the first time
        // it is named (~100k instructions each), which the first user of each zone paid on an
        // I/O thread. (A population's zones were looked up when its profile was validated.)
        if checker != nil { for zone in UserIdentity.timezones { _ = LocalTimeZone(zone) } }
        let world = FleetWorld(client: client, recorder: recorder, recordings: target.recordings, behaviour: profile.behaviour,
                               checker: checker)
        fleet = Fleet(profile: profile, world: world, control: control, shard: shard)
        // Shards started at one barrier share the time part, so their folders sort together.
        let id = RunSession.runId(profile: profile.name, wallMillis: options.startAtMillis ?? startWall, seed: profile.seed)
            + (shard.isWhole ? "" : "-shard-\(shard.index)-of-\(shard.count)")
        runId = id
        let label = target.label, git = GitRevision.current(), wall = startWall
        meta = { actual in
            RunMetadata(runId: id, profile: profile.name, seed: profile.seed, target: label,
                        startedAt: RFC3339.format(millis: wall), plannedDurationSeconds: profile.plannedDurationS,
                        actualDurationSeconds: actual, gitRevision: git,
                        lagBoundMicros: Int64(profile.maxLagMs * 1000), profileHash: profile.hash,
                        minEffect: profile.minEffect, minAbsoluteMs: profile.minAbsoluteMs)
        }
    }

    /// The live `/metrics` listener when `--metrics-listen` asks for one.
    func metricsEndpoint(say: @Sendable (String) -> Void) throws -> MetricsEndpoint? {
        guard let listen = metricsListen else { return nil }
        let recorder = self.recorder, control = self.control, engine = target.engine
        let e = try MetricsEndpoint(listen: listen, contentType: PrometheusText.contentType) {
            PrometheusText.render(recorder.liveView(), activeUsers: control.activeUsers, inFlight: engine.inFlight)
        }
        say("metrics: \(e.url)")
        return e
    }

    /// Streams the results as windows close, so that a hard stop loses at most the last one; nil
    /// (with a warning) when the run folder cannot be written.
    func streamer(say: @Sendable (String) -> Void) -> (@Sendable (UInt64) -> Void)? {
        let stream: ResultStream
        do { stream = try ResultStream(directory: outDir + "/" + runId) } catch {
            say("warning: results are not streamed (\(error)); a hard stop would lose the run")
            return nil
        }
        let meta = self.meta, start = self.start, windowNanos = self.windowNanos, recorder = self.recorder, profile = self.profile
        return { @Sendable (now: UInt64) -> Void in
            var m = meta(Double(now &- start) / 1e9)
            let at = Double((now &- start) / windowNanos * windowNanos) / 1e9
            m.notes.append("recovered: streamed at \(at) s; the run stopped before writing its report, and "
                           + "what came after is lost (totals may hold a sliver of the last, open window)")
            // The window `now` falls in is still open: stream through the one before it.
            let through = Int((now &- start) / windowNanos) - 1
            let breakdowns = stream.breakdownsDue
            let slice = recorder.streamSlice(m, after: stream.streamedThrough, through: through, breakdowns: breakdowns)
            // The line's verdicts are taken on a slice; recovery evaluates them again on the rebuilt totals.
            stream.append(Verdict.apply(profile: profile, to: slice), through: through, fromWindows: true, breakdowns: breakdowns)
        }
    }
}

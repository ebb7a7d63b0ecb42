import FleetCheck
import FleetClient
import FleetCore
import FleetHTTP
import FleetJourneys
import FleetMetrics
import Foundation

/// What `fleet replay` was asked: a run folder, a user, where, how often, how many shadows.
public struct ReplayOptions: Sendable {
    public var runDir: String
    public var user: Int
    public var target: String?
    public var repeats = 3
    /// Shadow devices of the same install racing the user with its very same decisions.
    public var amplify = 0
    public var allowRemote = false

    public init(runDir: String, user: Int) {
        self.runDir = runDir
        self.user = user
    }
}

/// `fleet replay`: re-runs one user of a finished run alone, with its own generator stream (the
/// same branches, clips and think times at the run's time scale), against the run's target (a
/// fresh embedded stack with the run's stack settings when the run had one), until a violation
/// shows again or `repeats` tries have passed. Each try makes the install a new user on the
/// server (an id suffix), so that what the run left on a shared target cannot mislead the checker.
public final class ReplaySession: Sendable {
    let options: ReplayOptions
    let launcher: any StackLauncher
    let loadRecordings: @Sendable (String) throws -> any RecordingSource
    let say: @Sendable (String) -> Void

    public init(options: ReplayOptions, launcher: any StackLauncher,
                recordings: @escaping @Sendable (String) throws -> any RecordingSource, say: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.launcher = launcher
        self.loadRecordings = recordings
        self.say = say
    }

    /// The try that reproduced a violation (1-based), or nil.
    public func run() async throws -> Int? {
        let dir = options.runDir
        let results: RunResults
        do { results = try RunResults.load(path: dir + "/results.json") } catch {
            throw RunnerError.badInput("\(dir)/results.json: \(error)")
        }
        var profile: Profile
        do { profile = try Profile.load(path: dir + "/profile.json") } catch {
            throw RunnerError.badInput("\(error)")
        }
        profile.seed = results.meta.seed
        let scenario = options.user >> 40, local = options.user & ((1 << 40) - 1)
        guard scenario < profile.scenarios.count else {
            throw RunnerError.badInput("--user \(options.user): the run's profile has no scenario \(scenario)")
        }
        let wanted = Set(results.violations.filter { $0.user == options.user }.map(\.invariant))
        let runTarget = results.meta.target.hasPrefix("embedded") ? nil : results.meta.target
        let recordings = try loadRecordings(profile.corpusDir)
        for attempt in 1...max(1, options.repeats) {
            var stack: (any RunningStack)?
            let base: String
            if let t = options.target ?? runTarget { base = t } else {
                let s = try launcher.start(settings: profile.stack)
                stack = s
                base = s.baseURL
            }
            defer { stack?.stop() }
            if !Loopback.isLoopbackURL(base), !options.allowRemote {
                throw RunnerError.failed("target \(base) is not a loopback address; pass --allow-remote to replay against a remote stack")
            }
            say("try \(attempt)/\(options.repeats): user \(options.user) (scenario \(profile.scenarios[scenario].name)) against \(base)"
                + (options.amplify > 0 ? " with \(options.amplify) shadow device(s)" : ""))
            let found = try await tryOnce(profile: profile, base: base, scenario: scenario, local: local, recordings: recordings,
                                          attempt: attempt)
            if !found.violations.isEmpty {
                let names = Set(found.violations.map(\.invariant.rawValue)).sorted().joined(separator: ", ")
                let again = wanted.isEmpty || !wanted.isDisjoint(with: found.violations.map(\.invariant)) ? "reproduced" : "a different violation"
                say("try \(attempt): \(again): \(found.violations.count) violation(s) of \(names)")
                for v in found.violations.prefix(5) { say("  \(v.invariant.rawValue) at \(String(format: "%.1f", v.firstAtS)) s: \(v.detail)") }
                try found.checker.writeTraces(to: dir, name: { "replay-user-\($0)-try-\(attempt).jsonl" })
                say("trace: \(dir)/traces/replay-user-\(options.user)-try-\(attempt).jsonl")
                return attempt
            }
            say("try \(attempt): no violation")
        }
        return nil
    }

    private func tryOnce(profile: Profile, base: String, scenario: Int, local: Int, recordings: any RecordingSource,
                         attempt: Int) async throws -> (violations: [Violation], checker: FleetChecker) {
        let engine = try HTTPEngine(configuration: HTTPEngine.Configuration())
        defer { engine.shutdown() }
        try await Preflight.check(base: base, engine: engine, timeoutS: 5)
        let settings = profile.client.settings(baseURL: base)
        let startWall = WallClock.nowMillis()
        let start = MonotonicClock.now()
        let recorder = Recorder(startNanos: start, windowNanos: UInt64(profile.windowS * 1e9))
        let client = APIClient(settings: settings, engine: engine, recorder: recorder)
        let checker = FleetChecker(settings: profile.checks, seed: profile.seed, clock: RunClock(startMono: start, startWallMs: startWall))
        let world = FleetWorld(client: client, recorder: recorder, recordings: recordings, behaviour: profile.behaviour, checker: checker)
        let fleet = Fleet(profile: profile, world: world, control: RunControl())
        let suffix = "-replay-\(attempt)-\(startWall)"
        let shadows = options.amplify
        let locals = Self.visits(profile: profile, scenario: scenario, local: local)
        if locals.count > 1 { say("user \(options.user) is a returning population user: its \(locals.count) visits in order, one device") }
        // One after another through one Fleet, so a later visit finds the device (tokens, state) the earlier left.
        let walk = Task {
            for (i, l) in locals.enumerated() where !Task.isCancelled {
                await fleet.walkUser(scenario: scenario, local: l, intended: i == 0 ? start : MonotonicClock.now(), shadows: shadows,
                                     installSuffix: suffix)
            }
        }
        // Bounded like the run: the profile's duration plus grace, then the walk is cancelled.
        let cap = Task {
            if await Pause.sleep(seconds: profile.durationS + profile.graceS) { walk.cancel() }
        }
        _ = await walk.value
        cap.cancel()
        await checker.audit(client: client, say: say)
        return (checker.violations, checker)
    }
}

extension ReplaySession {
    /// The launch indices to walk for user `local`: itself, or for a population scenario every
    /// visit the run gave that user (a violation names the user's first visit: all its visits
    /// are one account to the checker).
    static func visits(profile: Profile, scenario: Int, local: Int) -> [Int] {
        guard let m = profile.scenarios[scenario].model.model as? PopulationModel, let spec = m.spec else { return [local] }
        let user = PopulationUser.decode(local).user
        let end = min(profile.durationS, m.plannedDurationS)
        let visits = PopulationSchedule.visits(spec, seed: m.seed, users: user + 1, window: m.window, compression: m.compression,
                                               dayStartMs: PopulationSchedule.today())
        let mine = visits.filter { $0.user == user && $0.t < end }.map { PopulationUser.encode(user: user, visit: $0.visit) }
        return mine.isEmpty ? [local] : mine
    }
}

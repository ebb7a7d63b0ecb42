import FleetClient
import FleetCore
import FleetJourneys
import FleetMetrics

/// Runs a profile's scenarios: builds each arriving user, picks its journey and cohort from the
/// user's own generator, and walks it. No thread per user: users are tasks suspended on Dispatch
/// timers and on the engine's completions.
public final class Fleet: Sendable {
    public let profile: Profile
    public let world: FleetWorld
    public let control: RunControl
    /// The users this process runs (`--shard i/N`); `.whole` for a single process.
    public let shard: Shard

    public init(profile: Profile, world: FleetWorld, control: RunControl, shard: Shard = .whole) {
        self.profile = profile
        self.world = world
        self.control = control
        self.shard = shard
    }

    /// Starts every scenario at its offset from `start` and returns when all arrivals are done
    /// and every user has ended (or the run was stopped and drained).
    public func run(start: UInt64) async {
        await Self.runScenarios(profile: profile, start: start, control: control, recorder: world.recorder, shard: shard) {
            [self] s, local, intended in
            await self.walk(scenario: s, local: local, intended: intended)
        }
    }

    /// The scheduling half of `run`, apart from what a user does: every scenario gets its own
    /// driver, started at `start + start_s`, and its model calls `walk(scenario, local, intended)`
    /// for each user. Tests drive it with a walk that only records what it was asked.
    static func runScenarios(profile: Profile, start: UInt64, control: RunControl, recorder: Recorder, shard: Shard = .whole,
                             walk: @escaping @Sendable (_ scenario: Int, _ local: Int, _ intended: UInt64) async -> Void) async {
        control.setArrivalsDeadline(start &+ UInt64(profile.durationS * 1e9))
        // The drivers run in one task that a stop cancels: every driver sleep (`Pause`) ends at
        // once. Users are separate tasks (RunControl.spawn), so they are not cancelled by this and
        // keep their grace period.
        let drivers = Task {
            await withTaskGroup(of: Void.self) { group in
                for (i, scenario) in profile.scenarios.enumerated() {
                    let driver = ArrivalDriver(start: start &+ UInt64(scenario.startS * 1e9), scenarioIndex: i,
                                               scenarioName: scenario.name, seed: profile.seed, shard: shard, control: control,
                                               recorder: recorder) { local, intended in
                        await walk(i, local, intended)
                    }
                    group.addTask {
                        guard await driver.waitUntil(driver.start) else { return }
                        await scenario.model.model.drive(driver)
                    }
                }
            }
        }
        control.whenArrivalsStop { drivers.cancel() }
        await drivers.value
    }

    /// The stream of user `local` of scenario `s`: one seed gives the same users in every run.
    public static func stream(scenario s: Int, local: Int) -> UInt64 { UInt64(s) << 40 | UInt64(local) }

    func walk(scenario s: Int, local: Int, intended: UInt64) async {
        let stream = Self.stream(scenario: s, local: local)
        let d = Self.decisions(profile: profile, scenario: s, local: local)
        let journey = JourneyCatalog.all[d.journey]!
        let device = Device(credentials: d.credentials)
        let user = VirtualUser(index: Int(stream), seed: profile.seed, world: world, device: device, cohort: d.cohort, start: intended)
        world.recorder.recordLatency("user_start", intended: intended, actual: MonotonicClock.now(), end: MonotonicClock.now())
        // The cohort's starting state, reached through the API and recorded apart (`warmup:`);
        // a user whose warm-up failed does not walk its journey from a wrong state.
        guard await Population.prepare(user) else { return }
        _ = await user.run(journey)
    }
}

extension Fleet {
    /// What user `local` of scenario `s` is before it walks: its journey, cohort and install,
    /// all from its own generator, so the same in a single run and in whichever shard runs it.
    public static func decisions(profile: Profile, scenario s: Int, local: Int)
        -> (journey: String, cohort: String, credentials: Credentials) {
        let scenario = profile.scenarios[s]
        var pick = SeededRandom(seed: profile.seed ^ 0x5EED_C0DE, stream: stream(scenario: s, local: local))
        // Without `journeys` in the scenario each cohort walks its default mix.
        let (journey, cohort) = Population.pick(journeys: scenario.journeys, cohorts: scenario.cohorts, random: &pick)
        return (journey, cohort, UserIdentity.make(&pick))
    }
}

/// The install of a new user: install id, UI locale and timezone, drawn from the user's generator.
enum UserIdentity {
    static let locales = ["en-US", "en-GB", "zh-Hans-CN", "zh-Hans-SG"]
    static let timezones = ["UTC", "Europe/London", "America/New_York", "Asia/Shanghai", "Asia/Singapore", "+05:30", "-03:00"]

    static func make(_ r: inout SeededRandom) -> Credentials {
        let id = "inst-" + Hex.encode((0..<12).map { _ in UInt8(truncatingIfNeeded: r.next()) })
        let locale = locales[Int(r.next() % UInt64(locales.count))]
        let tz = timezones[Int(r.next() % UInt64(timezones.count))]
        return Credentials(installId: id, locale: locale, timezone: tz)
    }
}

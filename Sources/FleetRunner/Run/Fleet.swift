import FleetCheck
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
    /// Devices of a population's returning users (their later visits reuse them).
    let returning = ReturningDevices()

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
        // once. Users are separate tasks (RunControl.spawn, or a closed model's slot task,
        // RunControl.spawnSlot), so they are not cancelled by this and keep their grace period.
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
        await walkUser(scenario: s, local: local, intended: intended)
    }

    /// One user's whole visit: identity, checker, amplifiers, cohort warm-up, journey (with a
    /// twin device when drawn), back-to-back sessions, probes. `shadows` more devices of the same
    /// install walk the very same decisions at once (`fleet replay --amplify`). Returns the
    /// user's index.
    ///
    /// Everything decided before the first await is `plan`'s (synchronous, not inlined): this
    /// async frame then holds one reference instead of every local of the decision, and a task
    /// keeps its deepest frames for its whole life, thinks included (see `APIClient.attempts`).
    @discardableResult
    public func walkUser(scenario s: Int, local: Int, intended: UInt64, shadows: Int = 0, installSuffix: String? = nil) async -> Int {
        guard let plan = plan(scenario: s, local: local, intended: intended, installSuffix: installSuffix) else {
            world.recorder.count(.populationVisitsSkippedBusy)
            return Int(Self.stream(scenario: s, local: local))
        }
        let user = plan.user
        defer { if let l = plan.lease { returning.giveBack(l.user, user.device) } }
        world.recorder.recordLatency(.userStart, intended: intended, actual: MonotonicClock.now(), end: MonotonicClock.now())
        // One cancellation handler for the whole visit (`TransferScope`), not one per exchange, and
        // one binding of its request context (transfers, the user's checker, its double taps).
        await TransferScope.run(context: { $0.observer = plan.checker; $0.taps = plan.amplifiers.tapPolicy }) {
            // The cohort's starting state, reached through the API and recorded apart (`warmup:`);
            // a user whose warm-up failed does not walk its journey from a wrong state.
            // A returning visit is already in its cohort's state: no warm-up again.
            if plan.lease?.returning != true {
                guard await Population.prepare(user) else { return }
            }
            let walkers = plan.others(shadows: shadows, seed: profile.seed, intended: intended)
            let journey = plan.journey, midnight = plan.midnight
            // Alone (nearly every user), the visit runs in this task: a group would hold a
            // second task (and its frames) per user for the whole visit, thinks included.
            guard !walkers.isEmpty else { return await visit(user, journey: journey, midnight: midnight) }
            await visit(user, with: walkers, journey: journey, midnight: midnight)
        }
        plan.checker?.walkEnded()
        return user.index
    }

    /// What `walkUser` decides before it walks, kept by reference (with the user's own fields,
    /// all it needs to make the install's other devices). Confined to the user's task.
    final class WalkPlan {
        let user: VirtualUser
        let journey: any Journey
        let lease: PopulationVisitLease?
        let midnight: UInt64?
        let twin: Bool
        let identity: Credentials

        init(user: VirtualUser, journey: any Journey, lease: PopulationVisitLease?, midnight: UInt64?, twin: Bool,
             identity: Credentials) {
            self.user = user; self.journey = journey; self.lease = lease; self.midnight = midnight
            self.twin = twin; self.identity = identity
        }

        var checker: UserChecker? { user.checker }
        var amplifiers: Amplifiers { user.amplifiers }

        /// A device of this user: `device` (a returning visit's) or a new one for `credentials`.
        static func makeUser(_ credentials: Credentials, stream: UInt64, seed: UInt64, world: FleetWorld, device: Device?,
                             cohort: String, intended: UInt64, checker: UserChecker?, amplifiers: Amplifiers) -> VirtualUser {
            let u = VirtualUser(index: Int(stream), seed: seed, world: world, device: device ?? Device(credentials: credentials),
                                cohort: cohort, start: intended)
            u.checker = checker
            u.amplifiers = amplifiers
            return u
        }

        /// The other devices of the install, made after the warm-up: shadows replay the user's own
        /// decisions (same seed, same next instant); a twin has decisions of its own.
        func others(shadows: Int, seed: UInt64, intended: UInt64) -> [VirtualUser] {
            func make(_ offset: UInt64) -> VirtualUser {
                Self.makeUser(identity.sameInstall(), stream: UInt64(user.index), seed: seed ^ offset, world: user.world, device: nil,
                              cohort: user.cohort, intended: intended, checker: checker, amplifiers: amplifiers)
            }
            var out = (0..<shadows).map { _ -> VirtualUser in
                let o = make(0)
                o.random = user.random
                o.nextIntended = user.nextIntended
                return o
            }
            if twin { out.append(make(0x7_7417)) }
            return out
        }
    }

    /// The user, its journey, cohort, identity, checker and amplifier draws; nil when a population
    /// user's device is still busy with an earlier visit.
    @inline(never)
    private func plan(scenario s: Int, local: Int, intended: UInt64, installSuffix: String?) -> WalkPlan? {
        let scenario = profile.scenarios[s]
        let stream = Self.stream(scenario: s, local: local)
        let d = Self.decisions(profile: profile, scenario: s, local: local)
        var (journeyName, cohort, identity) = (d.journey, d.cohort, d.credentials)
        // The amplifiers' draws (and a population visit's journey) come from a generator of their
        // own, so that turning them on changes none of the shard-stable decisions above.
        var pick = SeededRandom(seed: profile.seed ^ 0xA3_F117, stream: stream)
        // A population's visit: the user's own traits, and its device again when it comes back.
        let lease = populationLease(scenario: scenario, local: local, random: &pick)
        if let lease {
            guard let l = lease.value else { return nil }
            (journeyName, cohort, identity) = (l.journey, l.cohort, l.device.credentials)
        } else if let v = visitorDraw(scenario: scenario, local: local, random: &pick) {
            (journeyName, cohort, identity) = v
        }
        // A replay against a stack that already met this install makes it a new user again (same decisions).
        // (A returning visit's device already carries it from the user's first visit.)
        if let installSuffix, !identity.installId.hasSuffix(installSuffix) { identity.installId += installSuffix }
        let amp = scenario.amplifiers
        // The midnight amplifier: a timezone whose local midnight falls 10–70 s after arrival.
        var midnight: UInt64?
        if amp.midnight > 0, pick.chance(amp.midnight) {
            let (tz, at) = UserIdentity.midnightZone(afterS: 10 + pick.unit() * 15)
            identity.timezone = tz
            midnight = at
        }
        let twin = amp.twinDevice > 0 && pick.chance(amp.twinDevice)
        // A returning user is one account to the checker too: its visits share one user's state.
        let checkedAs = lease?.value.map { Int(Self.stream(scenario: s, local: PopulationUser.encode(user: $0.user, visit: 0))) } ?? Int(stream)
        let checker = world.checker?.user(checkedAs, scenario: scenario.name, journey: journeyName.rawValue, credentials: identity)
        let user = WalkPlan.makeUser(identity, stream: stream, seed: profile.seed, world: world, device: lease?.value?.device,
                                     cohort: cohort, intended: intended, checker: checker, amplifiers: amp)
        return WalkPlan(user: user, journey: journeyName.journey, lease: lease?.value, midnight: midnight, twin: twin,
                        identity: identity)
    }

    /// The visit with the install's other devices walking at once, each in a task of the group.
    /// Apart from `walkUser`: inline, the group's frame was in the closure every user's visit runs
    /// in (608 bytes, most users walk alone), and a task keeps its deepest frames' slabs.
    @inline(never)
    private func visit(_ user: VirtualUser, with walkers: [VirtualUser], journey: any Journey, midnight: UInt64?) async {
        await withTaskGroup(of: Void.self) { group in
            for o in walkers { group.addTask { _ = await o.run(journey) } }
            group.addTask { await self.visit(user, journey: journey, midnight: midnight) }
        }
    }

    /// The journey, then back-to-back sessions (for a midnight user: until it settled past its midnight), then probes.
    @inline(never)  // see APIClient.attempts: an inlined async callee's frame adds to its caller's
    private func visit(_ user: VirtualUser, journey: any Journey, midnight: UInt64?) async {
        var outcome = await user.run(journey)
        let amp = user.amplifiers
        var extra = 0
        if let midnight {
            while outcome == .completed, user.lastSettledAt < midnight &+ 3_000_000_000, extra < 12, !Task.isCancelled {
                extra += 1
                outcome = await user.run(journey)
            }
        } else if amp.backToBack > 0, user.random.chance(amp.backToBack) {
            while outcome == .completed, extra < amp.backToBackSessions, !Task.isCancelled {
                extra += 1
                outcome = await user.run(journey)
            }
        }
        await user.crossUserProbe()
    }
}

extension Fleet {
    /// What user `local` of scenario `s` is before it walks: its journey, cohort and install,
    /// all from its own generator, so the same in a single run and in whichever shard runs it.
    public static func decisions(profile: Profile, scenario s: Int, local: Int)
        -> (journey: JourneyName, cohort: String, credentials: Credentials) {
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

    /// A `±HH:MM` zone whose local midnight is the first whole minute at least `afterS` from now,
    /// and that instant (monotonic). Offsets are whole minutes, so midnight falls on a whole UTC minute.
    static func midnightZone(afterS: Double) -> (String, UInt64) {
        let now = WallClock.nowMillis(), mono = MonotonicClock.now()
        let target = ((now + Int64(afterS * 1000)) / 60_000 + 1) * 60_000
        var offsetS = Int((86_400_000 - target % 86_400_000) % 86_400_000 / 1000)
        if offsetS > 14 * 3600 { offsetS -= 86_400 }
        return (LocalTimeZone.formatOffset(seconds: offsetS), mono &+ UInt64(target - now) * 1_000_000)
    }

    static func make(_ r: inout SeededRandom) -> Credentials {
        let id = "inst-" + Hex.encode((0..<12).map { _ in UInt8(truncatingIfNeeded: r.next()) })
        let locale = locales[Int(r.next() % UInt64(locales.count))]
        let tz = timezones[Int(r.next() % UInt64(timezones.count))]
        return Credentials(installId: id, locale: locale, timezone: tz)
    }
}

import FleetTestSupport
import XCTest
import FleetCore
import FleetMetrics
@testable import FleetRunner

/// Each workload model in real time but small: how many users it starts, when, and how many are
/// alive at once, through the same `Fleet.runScenarios` the run uses, with a walk that only
/// records what it was asked and sleeps like a journey would.
final class WorkloadModelTests: XCTestCase {
    /// What the walk closure saw: per scenario, each user's intended start and the peak alive.
    struct Log {
        var intended: [Int: [UInt64]] = [:]
        var alive: [Int: Int] = [:]
        var peak: [Int: Int] = [:]

        mutating func begin(_ s: Int, _ t: UInt64) {
            intended[s, default: []].append(t)
            alive[s, default: 0] += 1
            peak[s] = max(peak[s] ?? 0, alive[s]!)
        }
        mutating func end(_ s: Int) { alive[s, default: 0] -= 1 }
        func starts(_ s: Int) -> [UInt64] { intended[s] ?? [] }
        func peak(_ s: Int) -> Int { peak[s] ?? 0 }
    }

    static func profile(_ scenarios: String, duration: Double = 30) throws -> Profile {
        try Profile.parse(try JSONValue.parse(#"{"name": "t", "seed": 3, "duration_s": \#(duration), "scenarios": [\#(scenarios)]}"#),
                          file: "t.json")
    }

    /// Runs the profile's scenarios with users that each live `userS` seconds.
    static func run(_ p: Profile, userS: Double, control: RunControl = RunControl(), recorder: Recorder = Recorder())
        async -> (log: Log, start: UInt64) {
        let log = Box(Log())
        let start = MonotonicClock.now() &+ 20_000_000
        await Fleet.runScenarios(profile: p, start: start, control: control, recorder: recorder) { s, _, intended in
            log.mutate { $0.begin(s, intended) }
            await Pause.sleep(seconds: userS)
            log.mutate { $0.end(s) }
        }
        _ = await control.drain(until: MonotonicClock.now() &+ 5_000_000_000)
        return (log.value, start)
    }

    func testPerUserOnceStartsExactlyNSpreadOverTheRamp() async throws {
        let p = try Self.profile(#"{"name": "a", "model": {"type": "per-user-once", "users": 5, "ramp_s": 0.4}, "journeys": {"dailyQuest": 1}}"#)
        let (log, start) = await Self.run(p, userS: 0.05)
        let starts = log.starts(0).sorted()
        XCTAssertEqual(starts.count, 5)
        for (i, t) in starts.enumerated() {
            XCTAssertEqual(Double(t &- start) / 1e9, Double(i) * 0.1, accuracy: 1e-6, "user \(i)")
        }
    }

    /// Closed model: N alive at once, each replaced when it ends, never more than N.
    func testConstantPopulationKeepsNAliveAndReplacesThem() async throws {
        let p = try Self.profile(#"{"name": "a", "model": {"type": "constant-population", "users": 3, "duration_s": 1}, "journeys": {"dailyQuest": 1}}"#)
        let (log, _) = await Self.run(p, userS: 0.1)
        XCTAssertEqual(log.peak(0), 3)
        // 3 slots × ~10 users each in 1 s (timers may run late on a busy machine, never early).
        XCTAssertGreaterThanOrEqual(log.starts(0).count, 15)
        XCTAssertLessThanOrEqual(log.starts(0).count, 33)
    }

    /// Closed model: stopping arrivals leaves the users walking alone (their grace) and at once
    /// ends the slots still asleep before their turn; only walking users count as active, and a
    /// slot is one task whether it walks or sleeps.
    func testStopKeepsClosedModelUsersWalkingAndEndsSleepingSlots() async throws {
        // 4 slots ramped over 40 s: slot 0 starts at once, the others sleep until 10, 20, 30 s.
        let p = try Self.profile(#"{"name": "a", "model": {"type": "constant-population", "users": 4, "duration_s": 60, "ramp_s": 40}, "journeys": {"dailyQuest": 1}}"#, duration: 60)
        let control = RunControl()
        let walking = Box(0), finished = Box<[Bool]>([]), gate = RunControlDrainTests.Gate()
        let run = Task {
            await Fleet.runScenarios(profile: p, start: MonotonicClock.now(), control: control, recorder: Recorder()) { _, _, _ in
                walking.add(1)
                await gate.wait()
                finished.mutate { $0.append(!Task.isCancelled) }
            }
        }
        let began = await eventuallyAsync(within: 5) { walking.value == 1 && control.liveTasks == 4 }
        XCTAssertTrue(began, "\(walking.value) walking, \(control.liveTasks) tasks")
        XCTAssertEqual(control.activeUsers, 1, "slots asleep before their turn are not active users")
        let stoppedAt = MonotonicClock.now()
        control.stopArrivals()
        await run.value
        let slotsEnded = await eventuallyAsync(within: 5) { control.liveTasks == 1 }
        XCTAssertTrue(slotsEnded, "\(control.liveTasks) tasks left after the stop")
        XCTAssertLessThan(Double(MonotonicClock.now() &- stoppedAt) / 1e9, 5, "the asleep slots did not wait for their turn")
        XCTAssertEqual(control.activeUsers, 1)
        gate.open()
        let drained = await control.drain(until: MonotonicClock.now() &+ 5_000_000_000)
        XCTAssertTrue(drained)
        XCTAssertEqual(finished.value, [true], "the walking user finished, not cancelled")
        XCTAssertEqual(walking.value, 1, "no user starts after the stop")
        XCTAssertEqual(control.activeUsers, 0)
    }

    /// 50,000 slots whose users all end at one instant, as at a run's stop, finish quickly: slots
    /// are not children of one task group (whose child removal is quadratic: a flat group of
    /// 50,000 took 16 s to drain in a debug build, and over 120 s with real users).
    /// The duration leaves room for a slow debug build to start every slot before the end (CI's
    /// machine started 37,092 in the first second); the users all wake half a second after it.
    func testFiftyThousandSlotsEndingTogetherFinishQuickly() async throws {
        let p = try Self.profile(#"{"name": "a", "model": {"type": "constant-population", "users": 50000, "duration_s": 4}, "journeys": {"dailyQuest": 1}}"#, duration: 4)
        let control = RunControl(), users = Box(0)
        let started = MonotonicClock.now(), wake = started &+ 4_500_000_000
        await Fleet.runScenarios(profile: p, start: started, control: control, recorder: Recorder()) { _, _, _ in
            users.add(1)
            await Pause.until(wake)
        }
        let drained = await control.drain(until: MonotonicClock.now() &+ 10_000_000_000)
        XCTAssertTrue(drained)
        XCTAssertEqual(users.value, 50_000, "each slot walks one user: the next turn falls after the 4 s duration")
        XCTAssertLessThan(Double(MonotonicClock.now() &- wake) / 1e9, 8.5, "the slots drained slowly after their users ended together")
    }

    /// Closed ramp: 0 → 4 users over 0.4 s; slot k wakes when the target reaches k + 1.
    func testRampingPopulationFollowsItsStages() async throws {
        let p = try Self.profile(#"""
        {"name": "a", "model": {"type": "ramping-population", "stages": [{"duration_s": 0.4, "users": 4}, {"duration_s": 0.6, "users": 4}]},
         "journeys": {"dailyQuest": 1}}
        """#)
        let (log, start) = await Self.run(p, userS: 2)
        // Each slot starts one long user: the first starts are the activation instants 0.1, 0.2, 0.3, 0.4 s.
        let firsts = log.starts(0).sorted().map { Double($0 &- start) / 1e9 }
        XCTAssertEqual(firsts.count, 4)
        for (i, t) in firsts.enumerated() { XCTAssertEqual(t, 0.1 * Double(i + 1), accuracy: 0.002) }
        XCTAssertEqual(log.peak(0), 4)
    }

    /// A ramp down ends a slot's life when its journey ends; the activation search never spins.
    func testRampingPopulationActivationIntervals() {
        let pop = RampingPopulation(startUsers: 0, stages: [Stage(durationS: 10, target: 10), Stage(durationS: 10, target: 0)])
        XCTAssertEqual(pop.firstTime(above: 4, after: 0) ?? -1, 5, accuracy: 1e-9)
        XCTAssertEqual(pop.firstTime(above: 4, after: 14) ?? -1, 14, accuracy: 1e-9)  // still ≥ 5 until t = 15
        XCTAssertNil(pop.firstTime(above: 4, after: 15.5))  // the target has fallen below 5 for good
        XCTAssertEqual(pop.target(at: 15), 5)
        XCTAssertEqual(pop.target(at: 15.5), 4)
        // Falling from the start: slot 0 is alive at once and then never again after 10 s.
        let down = RampingPopulation(startUsers: 2, stages: [Stage(durationS: 10, target: 0)])
        XCTAssertEqual(down.firstTime(above: 0, after: 0) ?? -1, 0, accuracy: 1e-9)
        XCTAssertNil(down.firstTime(above: 1, after: 0.1))
    }

    /// Two scenarios, each with its own model and start time; the open one's arrivals fall in its
    /// own window (offset by its `start_s`) in the number its rate gives, and each has its own counter.
    func testTwoScenariosRunWithTheirOwnStartTimes() async throws {
        let p = try Self.profile(#"""
        {"name": "first", "model": {"type": "per-user-once", "users": 4, "ramp_s": 0}, "journeys": {"dailyQuest": 1}},
        {"name": "second", "start_s": 0.5, "model": {"type": "constant-arrival-rate", "rate": 40, "duration_s": 0.5},
         "journeys": {"dailyQuest": 1}}
        """#)
        let recorder = Recorder()
        let (log, start) = await Self.run(p, userS: 0.01, recorder: recorder)
        XCTAssertEqual(log.starts(0).count, 4)
        XCTAssertTrue(log.starts(0).allSatisfy { $0 == start })
        // From the model's definition, not its generator: a Poisson count with mean ∫ 40/s dt over
        // 0.5 s = 20 lies within 3σ = 3√20 of it; every arrival is inside [start_s, start_s + 0.5 s).
        let seen = log.starts(1).sorted().map { Double($0 &- start) / 1e9 }
        let expected = 40 * 0.5
        XCTAssertLessThan(abs(Double(seen.count) - expected), 3 * expected.squareRoot(), "\(seen.count) arrivals")
        XCTAssertTrue(seen.allSatisfy { $0 >= 0.5 - 1e-6 && $0 < 1.0 + 1e-6 }, "\(seen)")
        let counters = recorder.snapshot(.init(runId: "t", profile: "t", seed: 3, target: "-", startedAt: "-")).counters
        XCTAssertEqual(counters["users_started:first"], 4)
        XCTAssertEqual(counters["users_started:second"], Int64(seen.count))
    }

    /// A stop ends the schedule at once, even while a slot sleeps far from its turn.
    func testStopEndsSchedulesAtOnce() async throws {
        let p = try Self.profile(#"""
        {"name": "pop", "model": {"type": "ramping-population", "stages": [{"duration_s": 60, "users": 3}]}, "journeys": {"dailyQuest": 1}},
        {"name": "open", "model": {"type": "constant-arrival-rate", "rate": 0.01, "duration_s": 60}, "journeys": {"dailyQuest": 1}}
        """#, duration: 120)
        let control = RunControl()
        Task {
            await Pause.sleep(seconds: 0.3)
            control.stopArrivals()
        }
        let began = MonotonicClock.now()
        _ = await Self.run(p, userS: 0.01, control: control)
        XCTAssertLessThan(Double(MonotonicClock.now() &- began) / 1e9, 2)
    }

    /// Open model: `max_users` caps one scenario, not the run; the other's users do not count.
    func testMaxUsersIsPerScenario() async throws {
        let p = try Self.profile(#"""
        {"name": "busy", "model": {"type": "per-user-once", "users": 30, "ramp_s": 0}, "journeys": {"dailyQuest": 1}},
        {"name": "open", "start_s": 0.1, "model": {"type": "constant-arrival-rate", "rate": 50, "duration_s": 0.5, "max_users": 40},
         "journeys": {"dailyQuest": 1}}
        """#)
        let recorder = Recorder()
        let (log, _) = await Self.run(p, userS: 1, recorder: recorder)
        // 50/s over 0.5 s: a Poisson count with mean 25 (3σ = 15), from the model's definition.
        let opened = log.starts(1).count
        XCTAssertLessThan(abs(Double(opened) - 25), 3 * 25.0.squareRoot(), "\(opened) arrivals")
        XCTAssertLessThan(opened, 40, "the schedule itself must fit under max_users for this test to mean anything")
        XCTAssertGreaterThan(opened + 30, 40, "together the two scenarios must exceed max_users")
        let counters = recorder.snapshot(.init(runId: "t", profile: "t", seed: 3, target: "-", startedAt: "-")).counters
        XCTAssertNil(counters["dropped_arrivals"])
    }
}

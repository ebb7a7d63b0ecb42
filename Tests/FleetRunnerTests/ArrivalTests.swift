import FleetTestSupport
import Synchronization
import XCTest
import FleetCore
@testable import FleetRunner

final class ArrivalTests: XCTestCase {
    /// Poisson arrivals at rate λ over 60 s: the count is within 3 standard deviations (√(60λ)) of 60λ.
    func testPoissonCountsOverSixtySeconds() {
        for (seed, lambda) in [(UInt64(1), 5.0), (2, 50.0), (3, 400.0)] {
            let n = Array(PoissonArrivals(durationS: 60, maxRate: lambda, random: SeededRandom(seed: seed)) { _ in lambda }).count
            let mean = 60 * lambda
            XCTAssertLessThan(abs(Double(n) - mean), 3 * mean.squareRoot(), "λ=\(lambda): \(n) arrivals")
        }
    }

    /// Thinning follows a ramp: in a 0 → 100/s ramp over 60 s the first half holds a quarter of the arrivals.
    func testRampingRateFollowsStages() {
        let model = RampingArrivalRate(startRate: 0, stages: [Stage(durationS: 60, target: 100)], maxUsers: 10)
        let times = Array(PoissonArrivals(durationS: 60, maxRate: 100, random: SeededRandom(seed: 9)) { model.rate(at: $0) })
        let expected = 3000.0
        XCTAssertLessThan(abs(Double(times.count) - expected), 3 * expected.squareRoot())
        let firstHalf = Double(times.filter { $0 < 30 }.count)
        XCTAssertEqual(firstHalf / Double(times.count), 0.25, accuracy: 0.03)
        XCTAssertEqual(times, times.sorted())
    }

    func testStagesInterpolateAndPopulationFindsActivationTimes() {
        let stages = [Stage(durationS: 10, target: 10), Stage(durationS: 10, target: 10), Stage(durationS: 10, target: 0)]
        XCTAssertEqual(Stage.value(at: 5, start: 0, stages: stages), 5, accuracy: 1e-9)
        XCTAssertEqual(Stage.value(at: 15, start: 0, stages: stages), 10, accuracy: 1e-9)
        XCTAssertEqual(Stage.value(at: 25, start: 0, stages: stages), 5, accuracy: 1e-9)
        XCTAssertEqual(Stage.value(at: 99, start: 0, stages: stages), 0, accuracy: 1e-9)
        let pop = RampingPopulation(startUsers: 0, stages: stages)
        // Slot 4 (the fifth user) becomes alive when the target reaches 5, at t = 5 s.
        XCTAssertEqual(pop.firstTime(above: 4, after: 0) ?? -1, 5, accuracy: 0.001)
        XCTAssertNil(pop.firstTime(above: 10, after: 0))
        XCTAssertEqual(pop.target(at: 15), 10)
    }

    /// Real time, small: a constant arrival rate launches the scheduled users through the driver,
    /// and arrivals beyond `max_users` are counted as dropped instead of delayed.
    func testDriverLaunchesAndDropsAtCapacity() async {
        let control = RunControl()
        let recorder = FleetMetricsRecorderFactory.make()
        let counter = Box(0)
        let driver = ArrivalDriver(start: MonotonicClock.now(), scenarioIndex: 0, seed: 5, control: control, recorder: recorder) { _, _ in
            counter.add(1)
            await Pause.sleep(seconds: 10)  // never ends within the test: every later arrival finds no room
        }
        await ConstantArrivalRate(rate: 50, durationS: 1, maxUsers: 5).drive(driver)
        let snapshot = recorder.snapshot(.init(runId: "t", profile: "t", seed: 5, target: "-", startedAt: "-"))
        XCTAssertEqual(counter.value, 5)
        // Every arrival is launched or dropped: 50/s over 1 s is a Poisson count with mean 50,
        // within 3σ = 3√50 of it (from the model's definition, not its generator).
        let dropped = snapshot.counters["dropped_arrivals"] ?? 0
        XCTAssertGreaterThan(dropped, 0)
        XCTAssertLessThan(abs(Double(dropped + 5) - 50), 3 * 50.0.squareRoot(), "\(dropped) dropped")
        control.cancelAll()
        _ = await control.drain(until: MonotonicClock.now() &+ 2_000_000_000)
        XCTAssertEqual(control.liveTasks, 0)
    }

    /// Slots are spawned a batch at a time with a pause between batches: slot j's task cannot
    /// begin before ⌊j / batch⌋ pauses have passed since `runSlots` began (all 12 began within
    /// a millisecond when every slot was spawned in one loop), and every slot still runs once.
    func testRunSlotsSpawnsInPacedBatches() async {
        let control = RunControl()
        let driver = ArrivalDriver(start: MonotonicClock.now(), scenarioIndex: 0, seed: 5, control: control,
                                   recorder: FleetMetricsRecorderFactory.make()) { _, _ in }
        let began = Mutex<[Int: UInt64]>([:])
        let pause: UInt64 = 30_000_000
        let t0 = MonotonicClock.now()
        await driver.runSlots(12, pacing: SlotPacing(batch: 4, pauseNanos: pause)) { j, _ in
            let now = MonotonicClock.now()
            began.withLock { $0[j] = now }
        }
        let starts = began.withLock { $0 }
        XCTAssertEqual(starts.keys.sorted(), Array(0..<12))
        for (j, at) in starts {
            XCTAssertGreaterThanOrEqual(at - t0, UInt64(j / 4) * pause, "slot \(j) began before its batch's pauses")
        }
    }
}

import FleetMetrics
enum FleetMetricsRecorderFactory {
    static func make() -> Recorder { Recorder() }
}

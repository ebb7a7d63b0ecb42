import FleetTestSupport
import XCTest
@testable import FleetRunner

/// A stack whose steps are scripted: each rate's verdict comes from a rule, and every rate asked for is kept.
final class ScriptedSteps: CapacityStepRunner, Sendable {
    let rule: @Sendable (Double) -> CapacityStep.Verdict
    private let asked = Box<[Double]>([])

    init(_ rule: @escaping @Sendable (Double) -> CapacityStep.Verdict) { self.rule = rule }

    var rates: [Double] { asked.value }

    func runStep(index: Int, rate: Double, maxS: Double) async -> CapacityStep {
        asked.append(rate)
        return CapacityStep(index: index, offeredRate: rate, verdict: rule(rate))
    }
}

final class CapacitySearchTests: XCTestCase {
    func settings(start: Double = 2, tolerance: Double = 0.05) -> CapacitySettings {
        var s = CapacitySettings()
        s.startRate = start
        s.tolerance = tolerance
        s.cooldownS = 0
        return s
    }

    func search(_ s: CapacitySettings, _ runner: ScriptedSteps, budget: Double = 1e6,
                stopped: @escaping @Sendable () -> Bool = { false }) async -> (CapacitySearch, String?) {
        await CapacityRun.search(settings: s, runner: runner, budgetS: budget, isStopped: stopped, say: { _ in })
    }

    func testExponentialThenBisectionConvergesOnTheKnee() async {
        let knee = 20.0 / 3  // W/(S·J) = 4 / (0.3 · 2)
        let steps = ScriptedSteps { $0 <= knee ? .pass : .fail(limit: "turnaround p99") }
        let (s, stop) = await search(settings(), steps)
        XCTAssertNil(stop)
        XCTAssertEqual(Array(steps.rates.prefix(4)), [2, 4, 8, 6], "doubling until the first failure, then the midpoint")
        let r = s.result()
        XCTAssertTrue(r.converged)
        XCTAssertFalse(r.generatorBound)
        XCTAssertEqual(r.limitingSLO, "turnaround p99")
        let pass = r.sustainable!.offeredRate, fail = r.nextFailing!.offeredRate
        XCTAssertLessThanOrEqual(pass, knee)
        XCTAssertGreaterThan(fail, knee)
        XCTAssertLessThanOrEqual((fail - pass) / pass, 0.05)
        XCTAssertTrue(r.headline.contains("highest sustainable arrival rate"), r.headline)
    }

    func testInvalidStepAsTheUpperBoundMeansGeneratorBound() async {
        // The stack would hold 50/s, but the generator falls behind from 5/s on.
        let steps = ScriptedSteps { $0 >= 5 ? .invalid(reason: "scheduling lag p99 400 ms over the 100 ms bound") : .pass }
        let (s, _) = await search(settings(), steps)
        let r = s.result()
        XCTAssertTrue(r.generatorBound)
        XCTAssertNil(r.limitingSLO)
        XCTAssertTrue(r.headline.hasPrefix("generator-bound at"), r.headline)
        XCTAssertGreaterThanOrEqual(r.nextFailing!.offeredRate, 5)
    }

    func testAFailureBelowAnInvalidStepIsAStackLimit() async {
        // Fails at 5/s on turnaround; the generator could not have driven 8/s, but that does not decide.
        let steps = ScriptedSteps { $0 >= 8 ? .invalid(reason: "cpu") : $0 > 5 ? .fail(limit: "settlement p99") : .pass }
        let (s, _) = await search(settings(), steps)
        let r = s.result()
        XCTAssertFalse(r.generatorBound)
        XCTAssertEqual(r.limitingSLO, "settlement p99")
        XCTAssertLessThanOrEqual(r.sustainable!.offeredRate, 5)
    }

    func testNothingPassingStepsDownToTheFloor() async {
        var st = settings(start: 1)
        st.minRate = 0.2
        let steps = ScriptedSteps { _ in .fail(limit: "error rate") }
        let (s, stop) = await search(st, steps)
        XCTAssertEqual(steps.rates, [1, 0.5, 0.25])
        XCTAssertNotNil(stop)
        XCTAssertNil(s.result().sustainable)
    }

    func testBudgetAndInterruptEndTheSearchWithWhatWasFound() async {
        let none = ScriptedSteps { _ in .pass }
        let (_, stop) = await search(settings(), none, budget: 5)  // min_step_s 20 does not fit
        XCTAssertTrue(none.rates.isEmpty)
        XCTAssertTrue(stop?.contains("time budget") ?? false)

        let counter = ScriptedSteps { _ in .pass }
        let (s, stop2) = await search(settings(), counter, stopped: { counter.rates.count >= 3 })
        XCTAssertEqual(stop2, "interrupted")
        // The step under way when Ctrl-C came (the third, 8/s) is not scored.
        XCTAssertEqual(s.steps.map(\.offeredRate), [2, 4])
        XCTAssertEqual(s.result(stopReason: stop2).sustainable?.offeredRate, 4)
        XCTAssertFalse(s.result(stopReason: stop2).converged)
    }
}
